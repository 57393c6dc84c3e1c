import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { createSessionClient, type SessionClient } from '../../src/client/index.js'
import { season } from '../session/harness.js'

/** A session host served in the page, a client of it, and a session holding the season in /context. */
export interface SessionInPage {
  host: SessionHost
  client: SessionClient
  sessionId: string
}

/**
 * The appendix job's host in the page (as test/browser/client.test.ts does): the scripted model asks
 * for the title first, run_js needs approval, and its text streams in pieces so a reply has deltas.
 */
export async function sessionInPage(): Promise<SessionInPage> {
  const secret = 'browser-secret-browser-secret-0123456789'
  const host = createSessionHost({
    store: memoryStore(),
    agents: {
      asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true, stream: { chunkChars: 6, chunkDelayMs: 5 } }),
    },
  })
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
  return { host, client, sessionId: id }
}
