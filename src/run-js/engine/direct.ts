import { Lifetime, WeakLifetime, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten-core'
import { Deferred, type CallResult, type HostFunction } from './deferred.js'
import { heapUtf8 } from './heap-utf8.js'
import { insideOf, type ContextCallbacks, type ContextInside } from './inside.js'
import type { NameTable } from './names.js'

/**
 * Direct calls into QuickJS for what every run does many times: property keys the host names
 * (`JSON`, `stringify`, `read`, …), the guest API's functions, calls of captured built-ins.
 * quickjs-emscripten's public methods copy each key into a fresh C string (malloc, copy, free) and
 * go through emscripten's `ccall` for any string argument; here the names are copied into the
 * capped memory once per run, as one block, and the calls pass pointers into it.
 *
 * It reads quickjs-emscripten 0.32's internals (`ctx.ffi`, `ctx.memory`, the module's raw exports):
 * {@link DirectCalls.open} checks that they look as expected and returns undefined otherwise, and the
 * callers then use the public API. Nothing here outlives the run: the block is freed at {@link close}.
 */

type Ptr = number

/** Arguments a direct call can pass (more go through `ctx.callFunction`). */
const ARGV_SLOTS = 8
/** Words the block holds before the names: argument slots, then two out-slots. */
const WORDS = ARGV_SLOTS + 2
const OUT = ARGV_SLOTS

/** `typeof` as QuickJS spells it, by its first two bytes. */
const TYPES = new Map<number, string>(
  ['undefined', 'object', 'boolean', 'number', 'string', 'function', 'symbol', 'bigint'].map(t => [
    t.charCodeAt(0) * 256 + t.charCodeAt(1),
    t,
  ]),
)

/** Direct calls for one context, with the table's names copied into its memory. */
export class DirectCalls {
  private block: Ptr
  private readonly argv: Ptr
  private readonly names: Ptr
  private readonly undefinedPtr: Ptr
  /** The argument slots as words, made once (the capped memory never grows; checked anyway). */
  private words: Int32Array | undefined
  /** quickjs-emscripten's own callback, put back at {@link close}. */
  private readonly publicCall: ContextCallbacks['callFunction']
  /** `ctx.undefined`, for calls. */
  readonly undefinedHandle: QuickJSHandle

  private constructor(
    private readonly ctx: QuickJSContext,
    private readonly inside: ContextInside,
    private readonly table: NameTable,
  ) {
    const m = inside.ffi.module
    this.block = m._malloc(WORDS * 4 + table.bytes.length)
    if (!this.block) throw new Error('run_js: QuickJS could not allocate the names of the guest API')
    this.argv = this.block
    this.names = this.block + WORDS * 4
    m.HEAPU8.set(table.bytes, this.names)
    this.undefinedPtr = inside.ffi.QTS_GetUndefined()
    this.undefinedHandle = ctx.undefined
    this.publicCall = inside.cToHostCallbacks.callFunction
    inside.cToHostCallbacks.callFunction = this.hostCall
  }

  /**
   * QuickJS calling a host function of this context: what quickjs-emscripten's own callback does for a
   * synchronous module (borrowed handles for `this` and the arguments, the result duplicated for QuickJS
   * or the error thrown), without a generator, a scope and their objects per call.
   */
  private readonly hostCall = (ctxPtr: Ptr, thisPtr: Ptr, argc: number, argv: Ptr, hostRefId: number): Ptr => {
    const { ffi, ctx, memory, runtime } = this.inside
    if (ctxPtr !== ctx.value) throw new Error('QuickJSContext instance received C -> JS call with mismatched ctx')
    const fn = runtime.hostRefs.get(hostRefId)
    if (typeof fn !== 'function') throw new Error(`Host reference ${hostRefId} is not a function`)
    const self = new WeakLifetime(thisPtr, memory.copyJSValue, memory.freeJSValue, runtime as never) as unknown as QuickJSHandle
    const args = new Array<QuickJSHandle>(argc)
    for (let i = 0; i < argc; i++)
      args[i] = new WeakLifetime(
        ffi.QTS_ArgvGetJSValueConstPointer(argv, i),
        memory.copyJSValue,
        memory.freeJSValue,
        runtime as never,
      ) as unknown as QuickJSHandle
    try {
      const result = (fn as HostFunction).apply(self, args)
      if (!result) return 0
      if ('error' in result && result.error) throw result.error
      const handle = result instanceof Lifetime ? (result as QuickJSHandle) : (result as unknown as { value: QuickJSHandle }).value
      try {
        return ffi.QTS_DupValuePointer(ctx.value, handle.value)
      } finally {
        handle.dispose()
      }
    } catch (error) {
      const handle = this.inside.errorToHandle(error)
      try {
        return ffi.QTS_Throw(ctx.value, handle.value)
      } finally {
        handle.dispose()
      }
    } finally {
      self.dispose()
      for (const a of args) a.dispose()
    }
  }

  /** Direct calls for `ctx`, or undefined where quickjs-emscripten's internals are not the ones this knows. */
  static open(ctx: QuickJSContext, table: NameTable): DirectCalls | undefined {
    const inside = insideOf(ctx)
    return inside && new DirectCalls(ctx, inside, table)
  }

  /** Frees the block. Nothing may be called after this. */
  close(): void {
    if (!this.block) return
    this.inside.cToHostCallbacks.callFunction = this.publicCall
    this.inside.ffi.module._free(this.block)
    this.block = 0
  }

  /** True if `name` is in the table (others go through the public API). */
  has(name: string): boolean {
    return this.table.offset(name) !== undefined
  }

  private name(name: string): Ptr {
    const offset = this.table.offset(name)
    if (offset === undefined || !this.block) throw new Error(`run_js: ${name} is not in the name table`)
    return this.names + offset
  }

  /** A fresh guest string for a table name (the caller frees the pointer). */
  private key(name: string): Ptr {
    return this.inside.ffi.QTS_NewString(this.inside.ctx.value, this.name(name))
  }

  getProp(obj: QuickJSHandle, name: string): QuickJSHandle {
    const { ffi, ctx } = this.inside
    const key = this.key(name)
    const ptr = ffi.QTS_GetProp(ctx.value, obj.value, key)
    ffi.QTS_FreeValuePointer(ctx.value, key)
    return this.inside.memory.heapValueHandle(ptr)
  }

  setProp(obj: QuickJSHandle, name: string, value: QuickJSHandle): void {
    const { ffi, ctx } = this.inside
    const key = this.key(name)
    ffi.QTS_SetProp(ctx.value, obj.value, key, value.value)
    ffi.QTS_FreeValuePointer(ctx.value, key)
  }

  /** Defines a data property: non-writable, configurable and enumerable as given (as `ctx.defineProp` does). */
  defineValue(obj: QuickJSHandle, name: string, value: QuickJSHandle, configurable: boolean, enumerable: boolean): void {
    const { ffi, ctx } = this.inside
    const key = this.key(name)
    const u = this.undefinedPtr
    ffi.module._QTS_DefineProp(ctx.value, obj.value, key, value.value, u, u, configurable ? 1 : 0, enumerable ? 1 : 0, 1)
    ffi.QTS_FreeValuePointer(ctx.value, key)
  }

  /** Defines a getter-only accessor, not configurable or enumerable (as `ctx.defineProp` with `get` does). */
  defineGetter(obj: QuickJSHandle, name: string, get: QuickJSHandle): void {
    const { ffi, ctx } = this.inside
    const key = this.key(name)
    const u = this.undefinedPtr
    ffi.module._QTS_DefineProp(ctx.value, obj.value, key, u, get.value, u, 0, 0, 0)
    ffi.QTS_FreeValuePointer(ctx.value, key)
  }

  /** A guest function named `name` calling `fn` (as `ctx.newFunction`). */
  newFunction(name: string, fn: HostFunction): QuickJSHandle {
    const { ffi, ctx, runtime } = this.inside
    const id = runtime.hostRefs.put(fn)
    try {
      return this.inside.memory.heapValueHandle(ffi.module._QTS_NewFunction(ctx.value, this.name(name), fn.length, 0, id))
    } catch (error) {
      runtime.hostRefs.delete(id)
      throw error
    }
  }

  private readonly settleCall = (fn: QuickJSHandle, value: QuickJSHandle): CallResult => this.call(fn, this.undefinedHandle, value)

  /** Calls `fn` with `self` and `args` (as `ctx.callFunction`). */
  call(fn: QuickJSHandle, self: QuickJSHandle, ...args: QuickJSHandle[]): CallResult {
    if (args.length > ARGV_SLOTS || !this.block) return this.ctx.callFunction(fn, self, ...args)
    const { ffi, ctx } = this.inside
    // QTS_Call copies the argument pointers before it runs anything, so a nested call may reuse the slots.
    const words = this.slots()
    for (let i = 0; i < args.length; i++) words[i] = args[i].value
    const result = ffi.QTS_Call(ctx.value, fn.value, self.value, args.length, this.argv)
    const error = ffi.QTS_ResolveException(ctx.value, result)
    if (error) {
      ffi.QTS_FreeValuePointer(ctx.value, result)
      return { error: this.inside.memory.heapValueHandle(error) }
    }
    return { value: this.inside.memory.heapValueHandle(result) }
  }

  private slots(): Int32Array {
    const heap = this.inside.ffi.module.HEAPU8
    let words = this.words
    if (!words || words.buffer !== heap.buffer) words = this.words = new Int32Array(heap.buffer, heap.byteOffset + this.argv, WORDS)
    return words
  }

  /**
   * Evaluates `code` as a global script named `filename` (a table name), as `ctx.evalCode(code, filename)`
   * does: the value, or the guest's exception.
   */
  evalCode(code: string, filename: string): CallResult {
    const { ffi, ctx, memory } = this.inside
    const m = ffi.module
    const chars = heapUtf8(m, code) ?? this.emscriptenUtf8(code)
    let result: Ptr
    try {
      result = m._QTS_Eval(ctx.value, chars.ptr, chars.bytes, this.name(filename), 1, 0)
    } finally {
      m._free(chars.ptr)
    }
    const error = ffi.QTS_ResolveException(ctx.value, result)
    if (error) {
      ffi.QTS_FreeValuePointer(ctx.value, result)
      return { error: memory.heapValueHandle(error) }
    }
    return { value: memory.heapValueHandle(result) }
  }

  /** `s` in the heap as emscripten copies it (a string with a lone surrogate: see heap-utf8.ts). */
  private emscriptenUtf8(s: string): { ptr: Ptr; bytes: number } {
    const m = this.inside.ffi.module
    const bytes = m.lengthBytesUTF8(s)
    const ptr = m._malloc(bytes + 1)
    if (!ptr) throw new Error('run_js: QuickJS could not allocate a string')
    m.stringToUTF8(s, ptr, bytes + 1)
    return { ptr, bytes }
  }

  /** A guest string (as `ctx.newString`: up to the first NUL), its UTF-8 written by the engine's encoder. */
  newString(s: string): QuickJSHandle {
    const { ffi, ctx, memory } = this.inside
    const chars = heapUtf8(ffi.module, s) ?? this.emscriptenUtf8(s)
    const ptr = ffi.QTS_NewString(ctx.value, chars.ptr)
    ffi.module._free(chars.ptr)
    return memory.heapValueHandle(ptr)
  }

  /** `typeof` of a guest value (as `ctx.typeof`, without decoding the C string). */
  typeof(h: QuickJSHandle): string {
    return this.typeofPtr(h.value)
  }

  private typeofPtr(value: Ptr): string {
    const { ffi, ctx } = this.inside
    const chars = ffi.QTS_Typeof(ctx.value, value)
    const heap = ffi.module.HEAPU8
    const type = (heap[chars] !== 0 && TYPES.get(heap[chars] * 256 + heap[chars + 1])) || ffi.module.UTF8ToString(chars)
    ffi.module._free(chars)
    return type
  }

  /** `obj[key]` as a number, for a key the caller holds (a string's `length`: no guest code runs). */
  numberAt(obj: QuickJSHandle, key: QuickJSHandle): number {
    const { ffi, ctx } = this.inside
    const ptr = ffi.QTS_GetProp(ctx.value, obj.value, key.value)
    const n = ffi.QTS_GetFloat64(ctx.value, ptr)
    ffi.QTS_FreeValuePointer(ctx.value, ptr)
    return n
  }

  /** A guest promise and its resolvers (as `ctx.newPromise()`). */
  newPromise(): Deferred {
    const { ffi, ctx, memory } = this.inside
    if (!this.block) throw new Error('run_js: the direct calls were closed')
    const promise = ffi.QTS_NewPromiseCapability(ctx.value, this.argv + OUT * 4)
    // Read after the call, through a view of the memory as it is now (a growth would detach an older one).
    const words = this.slots()
    return new Deferred(
      this.settleCall,
      memory.heapValueHandle(promise),
      memory.heapValueHandle(words[OUT]),
      memory.heapValueHandle(words[OUT + 1]),
    )
  }

  /**
   * Runs the pending jobs (as `runtime.executePendingJobs()`): `{}` when they ran, `{ error }` with
   * the exception one threw. Every job of this runtime belongs to this context (one run at a time).
   */
  executePendingJobs(): { error?: QuickJSHandle } {
    const { ffi, ctx, rt, memory } = this.inside
    if (!this.block) throw new Error('run_js: the direct calls were closed')
    this.slots()[OUT] = 0
    const value = ffi.QTS_ExecutePendingJob(rt.value, -1, this.argv + OUT * 4)
    // The jobs may have grown the memory: a view made before the call would read undefined here.
    const jobContext = this.slots()[OUT]
    if (jobContext === 0) {
      ffi.QTS_FreeValuePointerRuntime(rt.value, value)
      return {}
    }
    if (jobContext !== ctx.value) {
      ffi.QTS_FreeValuePointerRuntime(rt.value, value)
      throw new Error('run_js: a job of another context ran')
    }
    // A number (the jobs run) or the exception, told apart as quickjs-emscripten does: by typeof.
    if (this.typeofPtr(value) === 'number') {
      ffi.QTS_FreeValuePointer(ctx.value, value)
      return {}
    }
    return { error: memory.heapValueHandle(value) }
  }
}
