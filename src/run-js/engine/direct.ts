import { Lifetime, StaticLifetime, WeakLifetime, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten-core'
import { Deferred, type CallResult, type HostFunction } from './deferred.js'
import { heapUtf8 } from './heap-utf8.js'
import { insideOf, type ContextCallbacks, type ContextInside } from './inside.js'
import { ARGV_SLOTS, BLOCK_WORDS, InstanceNames } from './instance-names.js'
import type { NameTable } from './names.js'

/**
 * Direct calls into QuickJS for what every run does many times: property keys the host names
 * (`JSON`, `stringify`, `read`, …), the guest API's functions, calls of captured built-ins.
 * quickjs-emscripten's public methods copy each key into a fresh C string (malloc, copy, free) and
 * go through emscripten's `ccall` for any string argument; here the names are copied into the
 * capped memory as one block and each key string is made once, both kept by the module instance
 * for every run on it (instance-names.ts), and the calls pass pointers into them.
 *
 * It reads quickjs-emscripten 0.32's internals (`ctx.ffi`, `ctx.memory`, the module's raw exports):
 * {@link DirectCalls.open} checks that they look as expected and returns undefined otherwise, and the
 * callers then use the public API. Nothing of a context outlives the run; without an instance to keep
 * them, the block and keys are freed at {@link close} too.
 */

type Ptr = number

/** The first out-slot, after the argument slots (a direct call passes at most ARGV_SLOTS arguments). */
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
  /** Key strings by name index (the instance's, or this context's own when {@link owned}). */
  private readonly keys: Int32Array
  /** The block and keys are this object's to free (no instance keeps them). */
  private readonly owned: InstanceNames | undefined
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
    kept: InstanceNames | undefined,
  ) {
    const names = kept ?? new InstanceNames(table, inside)
    this.owned = kept ? undefined : names
    this.block = names.block
    this.keys = names.keys
    this.argv = this.block
    this.names = this.block + BLOCK_WORDS * 4
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

  /**
   * Direct calls for `ctx`, or undefined where quickjs-emscripten's internals are not the ones this
   * knows. With `keeper` (the run's module instance), the names are kept there for the next runs.
   */
  static open(ctx: QuickJSContext, table: NameTable, keeper?: { names?: InstanceNames }): DirectCalls | undefined {
    const inside = insideOf(ctx)
    if (!inside) return undefined
    if (keeper && !keeper.names?.serves(table, inside)) {
      keeper.names?.dispose()
      keeper.names = new InstanceNames(table, inside)
    }
    return new DirectCalls(ctx, inside, table, keeper?.names)
  }

  /** Puts quickjs-emscripten's callback back; frees the block unless an instance keeps it. Nothing may be called after this. */
  close(): void {
    if (!this.block) return
    this.inside.cToHostCallbacks.callFunction = this.publicCall
    this.owned?.dispose()
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

  /** The key string of a table name, made on first use and kept (the caller must not free it). */
  private key(name: string): Ptr {
    const i = this.table.index(name)!
    const made = this.keys[i]
    if (made) return made
    const key = this.inside.ffi.QTS_NewString(this.inside.ctx.value, this.name(name))
    if (!key) throw new Error(`run_js: QuickJS could not make the key ${name}`)
    return (this.keys[i] = key)
  }

  getProp(obj: QuickJSHandle, name: string): QuickJSHandle {
    return this.inside.memory.heapValueHandle(this.getPropPointer(obj.value, name))
  }

  /** `obj[name]` as a pointer the caller frees ({@link freeValue}): no handle object. */
  getPropPointer(obj: Ptr, name: string): Ptr {
    const { ffi, ctx } = this.inside
    return ffi.QTS_GetProp(ctx.value, obj, this.key(name))
  }

  /** A handle for a pointer someone else frees (its dispose does nothing). */
  borrow(ptr: Ptr): QuickJSHandle {
    return new StaticLifetime(ptr, this.inside.runtime as never) as unknown as QuickJSHandle
  }

  /** Frees a value pointer (from {@link getPropPointer}). */
  freeValue(ptr: Ptr): void {
    this.inside.ffi.QTS_FreeValuePointer(this.inside.ctx.value, ptr)
  }

  setProp(obj: QuickJSHandle, name: string, value: QuickJSHandle): void {
    const { ffi, ctx } = this.inside
    ffi.QTS_SetProp(ctx.value, obj.value, this.key(name), value.value)
  }

  /** Defines a data property: non-writable, configurable and enumerable as given (as `ctx.defineProp` does). */
  defineValue(obj: QuickJSHandle, name: string, value: QuickJSHandle, configurable: boolean, enumerable: boolean): void {
    const { ffi, ctx } = this.inside
    const u = this.undefinedPtr
    ffi.module._QTS_DefineProp(ctx.value, obj.value, this.key(name), value.value, u, u, configurable ? 1 : 0, enumerable ? 1 : 0, 1)
  }

  /** Defines a getter-only accessor, not configurable or enumerable (as `ctx.defineProp` with `get` does). */
  defineGetter(obj: QuickJSHandle, name: string, get: QuickJSHandle): void {
    const { ffi, ctx } = this.inside
    const u = this.undefinedPtr
    ffi.module._QTS_DefineProp(ctx.value, obj.value, this.key(name), u, get.value, u, 0, 0, 0)
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
    if (!words || words.buffer !== heap.buffer) words = this.words = new Int32Array(heap.buffer, heap.byteOffset + this.argv, BLOCK_WORDS)
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
