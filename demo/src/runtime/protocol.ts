import type { DemoSettings } from '../api/settings.js'

/**
 * The messages between the page and the in-tab session host worker. The page speaks HTTP to the
 * worker, nothing else: every API call is a `request` carrying a Request's parts and a port for
 * the answer; the answer's body is a ReadableStream transferred to the page (Chromium transfers
 * streams), so an SSE stream stays live across the thread boundary.
 */

/** How the page starts the worker's host. */
export interface InitMessage {
  type: 'init'
  settings: DemoSettings
  /** IndexedDB database of the workspace store and the token secret. */
  dbName: string
  /** Lease of a running session: how long a killed worker (a reload) can hold up resumption. */
  leaseMs: number
  /** Delay before every model call, to watch a run live. */
  modelDelayMs: number
}

/** New settings (the model); they apply from the next execution or resume. */
export interface ConfigureMessage {
  type: 'configure'
  settings: DemoSettings
}

/** One HTTP request; `port` (transferred with it) receives one {@link ReplyMessage}. */
export interface RequestMessage {
  type: 'request'
  method: string
  url: string
  headers: [string, string][]
  body: ArrayBuffer | null
}

/** The page gave up on a request (its AbortSignal fired) before the answer came. */
export interface AbortMessage {
  type: 'abort'
}

export type PageMessage = InitMessage | ConfigureMessage | RequestMessage

/** The host is up: the token of the owner "me" and the host's id. */
export interface ReadyMessage {
  type: 'ready'
  token: string
  hostId: string
}

/** The host could not start. */
export interface FailedMessage {
  type: 'failed'
  message: string
}

export type WorkerMessage = ReadyMessage | FailedMessage

/** The answer to a {@link RequestMessage}, on its port. */
export type ReplyMessage =
  | { type: 'response'; status: number; statusText: string; headers: [string, string][]; body: ReadableStream<Uint8Array> | null }
  | { type: 'error'; message: string }

/** Requests go to this origin; it never reaches the network (`.invalid` is reserved for that). */
export const IN_TAB_BASE_URL = 'http://in-tab.invalid'

/** The owner every in-tab session belongs to: this browser's one user. */
export const IN_TAB_OWNER = 'me'
