/// <reference path="../workerd/wasm.d.ts" />
/**
 * The QuickJS wasm for the worker threads, compiled once per process in the host thread and handed to
 * each thread as a `WebAssembly.Module` (structured clone shares the compiled code): the worker script
 * carries no copy of the wasm. The bytes come from `#quickjs-node`, the package's private import of
 * QuickJS for Node, the same file the core runs in-thread programs with; the build keeps it external,
 * so the package (and a one-file bundle of the app) carries the wasm for Node once.
 */
import type { QuickJsMessage } from './protocol.js'

let compiled: Promise<WebAssembly.Module> | undefined

export function quickJsModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    compiled = import('#quickjs-node').then(({ default: quickJs }) => {
      if (!quickJs) throw new Error('run_js: workerThreads() runs only in Node (#quickjs-node resolved to nothing here)')
      return WebAssembly.compile(quickJs.wasmBytes() as Uint8Array<ArrayBuffer>)
    })
    // Not kept when it failed: the next thread tries again.
    compiled.catch(() => (compiled = undefined))
  }
  return compiled
}

/** Sends a new thread its QuickJS module, or why there is none (then its runs fail with that reason). */
export function sendQuickJs(post: (message: QuickJsMessage) => void): void {
  quickJsModule()
    .then(
      module => post({ type: 'quickjs', module }),
      (error: unknown) => post({ type: 'quickjs', error: `QuickJS could not be loaded: ${(error as Error)?.message ?? String(error)}` }),
    )
    // A thread that cannot be told never says ready: its runs end waiting for it to start, with that message.
    .catch(() => {})
}
