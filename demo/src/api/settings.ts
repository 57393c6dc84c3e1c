/**
 * What the page tells a session host runtime: the one type the UI (demo/src/ui) and the runtimes
 * (demo/src/runtime for "in this tab", the HTTP API for "remote") share besides the session API.
 * Kept only in this browser (localStorage); the in-tab worker receives it from the page.
 */

/** Where the session host runs: in a Web Worker of this tab, or behind the session HTTP API. */
export type DemoMode = 'tab' | 'remote'

/** An OpenAI-compatible chat-completions endpoint. Without one, the scripted model runs offline. */
export interface ModelSettings {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseUrl: string
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string
  /** The model id the endpoint knows, e.g. `gpt-4o-mini`. */
  model: string
}

/** A session host reached over HTTP (`npm run serve`, the Worker): its base URL and a bearer token. */
export interface RemoteSettings {
  /** e.g. `http://127.0.0.1:8787`; the page's own origin when the Worker serves the demo. */
  baseUrl: string
  token: string
}

/** The demo's settings. */
export interface DemoSettings {
  mode: DemoMode
  /** In-tab mode: the model; absent means the scripted script-appendix model (offline). */
  model?: ModelSettings
  /** Remote mode: where the host is. */
  remote?: RemoteSettings
}

/** The agent profiles every demo host offers (in-tab, `npm run serve`, the Worker), by name. */
export const DEMO_PROFILES = {
  /** The script-appendix task; run_js runs without asking, writes outside /work ask. */
  appendix: 'appendix',
  /** The same, but it asks for the title first and wants approval for run_js. */
  appendixAsking: 'appendix-asking',
  /** One run_js program that asks for the title from inside the program, then writes it. */
  programQuestion: 'program-question',
  /** One run_js program writes two files; its writes wait for approval as a diff (writes: 'propose'). */
  proposeNotes: 'propose-notes',
} as const
