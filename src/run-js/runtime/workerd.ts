/// <reference path="./wasm.d.ts" />
/**
 * QuickJS for Cloudflare Workers (workerd). Workers refuse to compile wasm from bytes, so the wasm
 * is imported as a module (wrangler's CompiledWasm rule; the vitest pool needs none). Only code that
 * runs in workerd imports this file: `createRunJs({ vfs, engine: workerdEngine() })`.
 */
import wasmModule from '@jitl/quickjs-wasmfile-release-sync/wasm'
import { variantEngine, type QuickJsEngine } from '../engine.js'

let engine: QuickJsEngine | undefined

/** The release build instantiated from the imported `WebAssembly.Module`, one capped memory per instance. */
export function workerdEngine(): QuickJsEngine {
  return (engine ??= variantEngine({ wasmModule: wasmModule as WebAssembly.Module }))
}
