import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import type { LanguageModel } from '../../src/agent/index.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type AgentProfile, type SessionHost } from '../../src/session/index.js'
import { createSessionClient, type SessionClient } from '../../src/client/index.js'
import { season } from '../session/harness.js'

/** A session host served in the page, a client of it, and a session holding the season in /context. */
export interface SessionInPage {
  host: SessionHost
  client: SessionClient
  sessionId: string
  /** With `gateAtCall`: resolves when that model call waits; `open()` lets it go on. */
  gate: { reached: Promise<void>; open(): void }
}

/**
 * The appendix job's host in the page (as test/browser/client.test.ts does): the scripted model asks
 * for the title first, run_js needs approval, and its text streams in pieces so a reply has deltas.
 */
export async function sessionInPage(options: { gateAtCall?: number } = {}): Promise<SessionInPage> {
  const secret = 'browser-secret-browser-secret-0123456789'
  const base = scriptAppendixProfile({ askFirst: true, approveRunJs: true, stream: { chunkChars: 6, chunkDelayMs: 5 } })
  const { profile, gate } = gated(base, options.gateAtCall ?? 0)
  const host = createSessionHost({ store: memoryStore(), agents: { asking: profile } })
  const app = createSessionApp(host, { auth: { secret }, heartbeatMs: 200 })
  const client = createSessionClient({
    baseUrl: 'http://in-page.test',
    token: await mintToken(secret, 'ana'),
    fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init))),
  })
  const { id } = await client.api.createSession({ body: { profile: 'asking' } })
  await client.upload(
    id,
    Object.entries(season()).map(([path, data]) => ({ path, data })),
  )
  return { host, client, sessionId: id, gate }
}

/** `base` whose model call number `at` (counted over the whole session, every run) waits at a gate: a model still thinking. */
function gated(base: AgentProfile, at: number) {
  let calls = 0
  let open!: () => void
  let reached!: () => void
  const gate = { opened: new Promise<void>(r => (open = r)), reached: new Promise<void>(r => (reached = r)) }
  const wait = async () => {
    if (++calls !== at) return
    reached()
    await gate.opened
  }
  const profile: AgentProfile = {
    ...base,
    async setup(e) {
      const s = await base.setup(e)
      const model = s.model as LanguageModel & { doStream: (o: never) => Promise<unknown>; doGenerate: (o: never) => Promise<unknown> }
      const wrapped = {
        ...model,
        doGenerate: async (o: never) => (await wait(), model.doGenerate(o)),
        doStream: async (o: never) => (await wait(), model.doStream(o)),
      }
      return { ...s, model: wrapped as LanguageModel }
    },
  }
  return { profile, gate: { reached: gate.reached, open: () => open() } }
}
