import { newQuickJSWASMModuleFromVariant, newVariant, type CustomizeVariantOptions, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core'
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'

/** The part of a QuickJS module a run uses (a `TestQuickJSWASMModule` fits too, for leak tests). */
export type QuickJsModule = Pick<QuickJSWASMModule, 'newRuntime'>

/**
 * Makes QuickJS module instances. Each instance gets its own capped `WebAssembly.Memory`: that memory
 * is the only byte cap QuickJS really has (its `setMemoryLimit` counts allocations, not bytes).
 */
export interface QuickJsEngine {
  /** A fresh module instance whose whole heap is `memory`. */
  instantiate(memory: WebAssembly.Memory): Promise<QuickJsModule>
}

/** Options of {@link variantEngine}. */
export interface VariantEngineOptions {
  /** A sync QuickJS variant; default the release build `@jitl/quickjs-wasmfile-release-sync`. */
  variant?: QuickJSSyncVariant
  /**
   * A compiled wasm module (or a loader of one). Needed where wasm cannot be compiled from bytes
   * (Cloudflare Workers); elsewhere the variant loads its `.wasm` file itself.
   */
  wasmModule?: WebAssembly.Module | (() => Promise<WebAssembly.Module>)
  /** Wraps each new module, e.g. in `TestQuickJSWASMModule` to assert no leaks. */
  wrap?: (module: QuickJSWASMModule) => QuickJsModule
}

/**
 * Emscripten's stderr. The capped memory starts at its maximum, so every guest that runs out of memory
 * makes a debug build print "growMemory: Attempted to grow heap … Maximum memory size exceeded"; the
 * guest already gets its out-of-memory error, so that line is dropped. Anything else still goes out.
 */
function printErr(text: string): void {
  if (typeof text === 'string' && text.startsWith('growMemory: Attempted to grow heap')) return
  console.error(text)
}

/** Emscripten reads `Module.printErr` (passed through verbatim); the loader options type omits it. */
const QUIET = { printErr } as NonNullable<CustomizeVariantOptions['emscriptenModule']>

/** How long a module instance may take to start before we give up (a bad memory import hangs forever). */
const INSTANTIATE_TIMEOUT_MS = 30_000

/**
 * An engine over a quickjs-emscripten sync variant. By default the variant's own loader finds its
 * `.wasm` next to its JavaScript (Node reads the file, browsers fetch it), so bundles never inline it.
 */
export function variantEngine(options: VariantEngineOptions = {}): QuickJsEngine {
  const variant = options.variant ?? (RELEASE_SYNC as QuickJSSyncVariant)
  return {
    async instantiate(memory) {
      const customized = newVariant(variant, { ...(options.wasmModule ? { wasmModule: options.wasmModule } : {}), wasmMemory: memory, emscriptenModule: QUIET })
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`run_js: the QuickJS module did not start within ${INSTANTIATE_TIMEOUT_MS} ms`)), INSTANTIATE_TIMEOUT_MS)
      })
      try {
        const module = await Promise.race([newQuickJSWASMModuleFromVariant(customized), timeout])
        return options.wrap ? options.wrap(module) : module
      } catch (error) {
        throw options.wasmModule ? error : explainMissingWasm(error)
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/**
 * The variant's loader reads (Node) or fetches (browsers) `emscripten-module.wasm` next to the
 * JavaScript that loads it. An app bundled into one file moved that JavaScript away from the wasm:
 * say which file to put where, instead of emscripten's "Aborted(Error: ENOENT …)".
 */
function explainMissingWasm(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error)
  const missing = /([^\s'"(]*emscripten-module\.wasm)/.exec(message)
  if (!missing) return error
  return new Error(
    `the QuickJS wasm file is not where the bundled code looks for it (${missing[1]}). Copy node_modules/agent-vfs/dist/quickjs.wasm ` +
      `to ${missing[1]} when you build (or serve it at that URL), or load it yourself: createRunJs({ …, engine: variantEngine({ ` +
      `wasmModule: () => WebAssembly.compile(<the bytes of quickjs.wasm>) }) }). Original error: ${message}`,
    { cause: error },
  )
}

let defaultEngineInstance: QuickJsEngine | undefined

/** The engine used when `createRunJs` gets none: the release build through its own loader. */
export function defaultEngine(): QuickJsEngine {
  return (defaultEngineInstance ??= variantEngine())
}
