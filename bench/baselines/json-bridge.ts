/**
 * The bridge run_js would have if file contents crossed as JSON: the same QuickJS build, capped
 * memory and deferred-promise host calls, but `vfs.read` answers with `JSON.stringify(text)` and the
 * guest `JSON.parse`s it. Measured against run_js's raw-string reads (`runjs.vfs.read.1mb`).
 */
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core'
import type { Vfs } from '../../src/index.js'

let module: Promise<QuickJSWASMModule> | undefined

/** Runs `code` (an async function body with `vfs.read`) and returns its JSON result. */
export async function runWithJsonBridge(code: string, vfs: Vfs): Promise<unknown> {
  module ??= newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 1024 }) }))
  const rt = (await module).newRuntime()
  rt.setMaxStackSize(64 * 1024)
  const ctx = rt.newContext()
  try {
    const read = ctx.newFunction('__read', (argsHandle) => {
      const [path] = JSON.parse(ctx.getString(argsHandle)) as [string]
      const deferred = ctx.newPromise()
      void vfs.readFile(path, 'utf8').then((text) => {
        const h = ctx.newString(JSON.stringify(text))
        deferred.resolve(h)
        h.dispose()
        deferred.dispose()
        rt.executePendingJobs()
      })
      return deferred.handle.dup()
    })
    ctx.setProp(ctx.global, '__read', read)
    read.dispose()
    ctx.unwrapResult(ctx.evalCode(`globalThis.vfs = { read: (p) => __read(JSON.stringify([p])).then(JSON.parse) }`)).dispose()
    const promise = ctx.unwrapResult(ctx.evalCode(`(async () => {\n${code}\n})().then(JSON.stringify)`))
    rt.executePendingJobs()
    const done = ctx.resolvePromise(promise)
    promise.dispose()
    rt.executePendingJobs()
    const result = ctx.unwrapResult(await done)
    const json = ctx.getString(result)
    result.dispose()
    return JSON.parse(json)
  } finally {
    ctx.dispose()
    rt.dispose()
  }
}
