import { indexedDbStore } from 'agent-vfs'
import { createSessionApp, createSessionHost, mintToken, type AgentProfile, type SessionHost } from 'agent-vfs/session'
import { pacedProfile } from '../../../fixtures/script-appendix/paced.js'
import { scriptAppendixProfile, type ScriptAppendixProfileOptions } from '../../../fixtures/script-appendix/profile.js'
import { programQuestionProfile } from '../../../fixtures/script-appendix/program-question.js'
import { proposeNotesProfile } from '../../../fixtures/script-appendix/propose-notes.js'
import { DEMO_STREAM } from '../../../fixtures/script-appendix/stream.js'
import { DEMO_PROFILES, type DemoSettings } from '../api/settings.js'
import { IN_TAB_OWNER } from './protocol.js'
import { browserSecret } from './secret.js'

/** Options of {@link openInTabHost}. */
export interface InTabHostOptions {
  settings: DemoSettings
  /** IndexedDB database of the workspace store; the token secret lives in `<dbName>-keys`. */
  dbName: string
  leaseMs: number
  modelDelayMs: number
}

/** A session host running in this (worker) thread, its HTTP app and the token for its owner. */
export interface InTabHost {
  host: SessionHost
  fetch(request: Request): Response | Promise<Response>
  token: string
  /** New settings apply from the next execution or resume. */
  configure(settings: DemoSettings): void
  stop(): Promise<void>
}

/**
 * Opens the in-tab session host: sessions on IndexedDB, run_js in QuickJS, the script-appendix
 * profiles (the scripted model offline, or the OpenAI-compatible endpoint of the settings), and
 * the session HTTP API with a token for {@link IN_TAB_OWNER}. Executions a previous worker left
 * running (the tab was reloaded) resume once their lease lapses, at most `leaseMs` later.
 */
export async function openInTabHost(options: InTabHostOptions): Promise<InTabHost> {
  let settings = options.settings
  // The model is chosen per execution run, so a change of settings reaches the next run without a restart.
  // The offline model writes its text a little at a time, as a real one would: the timeline shows it streaming.
  const stream = DEMO_STREAM
  const profile = (extra: ScriptAppendixProfileOptions): AgentProfile => ({
    description: scriptAppendixProfile(extra).description,
    setup: e => pacedProfile(scriptAppendixProfile({ ...extra, ...currentModel(settings) }), options.modelDelayMs).setup(e),
  })
  // Bundled: the stripper for TypeScript programs is a chunk of its own, fetched on the first one.
  const typescript = () => import('agent-vfs/run-js/typescript')
  const host = createSessionHost({
    store: indexedDbStore({ dbName: options.dbName }),
    agents: {
      [DEMO_PROFILES.appendix]: profile({ runJs: { typescript }, stream }),
      [DEMO_PROFILES.appendixAsking]: profile({ runJs: { typescript }, stream, askFirst: true, approveRunJs: true }),
      [DEMO_PROFILES.programQuestion]: programQuestionProfile({ runJs: { typescript } }),
      [DEMO_PROFILES.proposeNotes]: proposeNotesProfile({ runJs: { typescript } }),
    },
    hostId: `tab-${crypto.randomUUID()}`,
    leaseMs: options.leaseMs,
  })
  const secret = await browserSecret(`${options.dbName}-keys`)
  const app = createSessionApp(host, { auth: { secret } })
  // Executions of a killed worker: taken over at start if their lease has lapsed, else on a later round.
  const recover = () => void host.recover().catch(() => undefined)
  recover()
  const recovering = setInterval(recover, options.leaseMs)
  return {
    host,
    fetch: request => app.fetch(request),
    token: await mintToken(secret, IN_TAB_OWNER, 30 * 86_400),
    configure: next => void (settings = next),
    async stop() {
      clearInterval(recovering)
      await host.stop()
    },
  }
}

/** The model options of the settings: an OpenAI-compatible endpoint, or none (the scripted model). */
function currentModel(settings: DemoSettings): ScriptAppendixProfileOptions {
  const m = settings.model
  if (!m?.baseUrl || !m.model) return {}
  return { openAi: { baseUrl: m.baseUrl, modelId: m.model, ...(m.apiKey ? { apiKey: m.apiKey } : {}) } }
}
