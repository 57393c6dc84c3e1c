/// <reference path="./wasm.d.ts" />
/**
 * agent-vfs/run-js/workerd: QuickJS for Cloudflare Workers (workerd). Workers refuse to compile wasm
 * from bytes, so the wasm is imported as a module. In the published package this import is
 * `./quickjs.wasm` (a copy in dist/), which wrangler's default rules load as CompiledWasm: a user's
 * Worker needs no `[[rules]]`. Only code that runs in workerd imports this file:
 * `createRunJs({ vfs, engine: workerdEngine() })`.
 */
import wasmModule from '@jitl/quickjs-wasmfile-release-sync/wasm'
import { variantEngine, type QuickJsEngine } from 'agent-vfs'

let engine: QuickJsEngine | undefined

/** The release build instantiated from the imported `WebAssembly.Module`, one capped memory per instance. */
export function workerdEngine(): QuickJsEngine {
  return (engine ??= variantEngine({ wasmModule: wasmModule as WebAssembly.Module }))
}
