/// <reference path="../../runtimes/workerd/wasm.d.ts" />
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type CustomizeVariantOptions,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core'

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

/** What a module instance is made from: the variant, and its compiled wasm when we have it ourselves. */
interface Source {
  variant: QuickJSSyncVariant
  wasmModule?: VariantEngineOptions['wasmModule']
}

/**
 * The release build, imported only where it is used: in Node `#quickjs-node` carries its own copy,
 * and a static import would load the variant's glue for nothing on every cold start (~3 ms).
 */
async function releaseSync(): Promise<QuickJSSyncVariant> {
  return (await import('@jitl/quickjs-wasmfile-release-sync')).default as QuickJSSyncVariant
}

/** Node (not workerd, whose `nodejs_compat` also has `process.versions.node`). */
function isNode(): boolean {
  const g = globalThis as { process?: { versions?: { node?: unknown } }; navigator?: { userAgent?: unknown } }
  return typeof g.process?.versions?.node === 'string' && g.navigator?.userAgent !== 'Cloudflare-Workers'
}

/**
 * Where the release build comes from. In Node: from `#quickjs-node`, the wasm bytes inside the
 * package's JavaScript, so a one-file bundle (CJS or ESM) needs no file beside it. Elsewhere the
 * variant's own loader fetches its `.wasm` (a bundler like Vite emits it as an asset).
 */
async function defaultSource(): Promise<Source> {
  if (isNode()) {
    const node = (await import('#quickjs-node')).default
    if (node) {
      const compiled = WebAssembly.compile(node.wasmBytes() as Uint8Array<ArrayBuffer>)
      return { variant: node.variant, wasmModule: () => compiled }
    }
  }
  return { variant: await releaseSync() }
}

/**
 * The caller's variant and wasm. A loader of the wasm is called here, not by quickjs-emscripten, which
 * leaves a rejected loader's promise unhandled (the process exits): its failure is this engine's error.
 */
async function givenSource(options: VariantEngineOptions): Promise<Source> {
  const variant = options.variant ?? (await releaseSync())
  const given = options.wasmModule
  if (typeof given !== 'function') return { variant, wasmModule: given }
  const compiled = await given()
  return { variant, wasmModule: compiled }
}

/**
 * An engine over a quickjs-emscripten sync variant. By default: the release build, in Node from the
 * bytes the package carries, elsewhere through the variant's loader (browsers fetch the `.wasm`).
 */
export function variantEngine(options: VariantEngineOptions = {}): QuickJsEngine {
  let source: Promise<Source> | undefined
  const sourceOnce = (): Promise<Source> => {
    if (!source) {
      source = options.variant || options.wasmModule ? givenSource(options) : defaultSource()
      // Not kept when it failed: the next instance tries again.
      source.catch(() => (source = undefined))
    }
    return source
  }
  return {
    async instantiate(memory) {
      const { variant, wasmModule } = await sourceOnce()
      const customized = newVariant(variant, {
        ...(wasmModule ? { wasmModule } : {}),
        wasmMemory: memory,
        emscriptenModule: QUIET,
      })
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`run_js: the QuickJS module did not start within ${INSTANTIATE_TIMEOUT_MS} ms`)),
          INSTANTIATE_TIMEOUT_MS,
        )
      })
      try {
        const module = await Promise.race([newQuickJSWASMModuleFromVariant(customized), timeout])
        return options.wrap ? options.wrap(module) : module
      } catch (error) {
        throw wasmModule ? error : explainMissingWasm(error)
      } finally {
        clearTimeout(timer)
      }
    },
  }
}

/**
 * The variant's loader fetches (browsers) `emscripten-module.wasm` next to the JavaScript that loads
 * it. An app bundled without its assets moved that JavaScript away from the wasm: say which file to
 * put where, instead of emscripten's "Aborted(…)". This is for the host's developer, never the model.
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
