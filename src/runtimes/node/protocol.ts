/**
 * Messages between the host thread and a run_js worker thread. Only data crosses (structured clone of
 * strings, numbers, plain objects, arrays and `Uint8Array`); tool values cross as JSON text. The
 * workspace and the tools stay in the host thread: the worker asks for every file operation and tool
 * call, and the host answers only while the run that asked is still running.
 */
import type { HostCallAnswer, RunJsImports, RunJsLimits, RunJsResult } from 'agent-vfs'

/** An error as it crosses: what the guest may see of it. */
export type WireError = Extract<HostCallAnswer, { ok: false }>['error']

/** Host → worker: run one program. */
export interface RunMessage {
  type: 'run'
  run: number
  code: string
  limits: Required<RunJsLimits>
  /** What is left of `limits.timeMs` (the run waited for a slot). */
  timeLeftMs: number
  /** The workspace's id in this pool (stable, so the worker keeps one stand-in per workspace), or absent. */
  vfs?: number
  /** Tool ids the guest gets. */
  tools: string[]
  archiveDir: string | false
  typescript: boolean
  /** How the program's imports resolve (plain data). */
  imports?: RunJsImports
  /** A journaled run's seed and recorded clock readings (`RunJsJob.clock`); each reading is reported back. */
  clock?: { seed: number; times: number[] }
}

/** Host → worker: the run's signal aborted. The reason crosses so the message reads the same. */
export interface AbortMessage {
  type: 'abort'
  run: number
  reason?: string | WireError
}

/** Host → worker: the answer to a call. */
export type AnswerMessage = { type: 'answer'; call: number } & HostCallAnswer

/**
 * Host → worker, once, first: the QuickJS wasm compiled in the host thread (see quickjs-module.ts), or
 * why there is none. A `WebAssembly.Module` crosses by structured clone, sharing the compiled code.
 */
export type QuickJsMessage = { type: 'quickjs'; module: WebAssembly.Module } | { type: 'quickjs'; error: string }

export type ToWorker = RunMessage | AbortMessage | AnswerMessage | QuickJsMessage

/** Worker → host: started and warmed up (QuickJS loaded, one instance made). */
export interface ReadyMessage {
  type: 'ready'
}

/** Worker → host: a file operation or tool call of run `run`. */
export interface CallMessage {
  type: 'call'
  run: number
  call: number
  kind: 'vfs' | 'guest' | 'tool' | 'archive'
  /** The workspace method, the guest's vfs function (`write`) or the tool id. */
  name: string
  args: unknown[]
}

/** Worker → host: the program of journaled run `run` read the clock (sent in order with its calls). */
export interface ClockMessage {
  type: 'clock'
  run: number
  time: number
}

/** Worker → host: run `run` ended. */
export interface DoneMessage {
  type: 'done'
  run: number
  result: RunJsResult
}

export type FromWorker = ReadyMessage | CallMessage | ClockMessage | DoneMessage
