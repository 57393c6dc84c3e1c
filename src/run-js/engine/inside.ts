import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'

// The internals of quickjs-emscripten 0.32 the direct calls (direct.ts) read, and the check that a
// context has them: where it does not, the callers use the public API.

type Ptr = number

interface EmscriptenModule {
  _malloc(bytes: number): Ptr
  _free(ptr: Ptr): void
  HEAPU8: Uint8Array
  UTF8ToString(ptr: Ptr): string
  lengthBytesUTF8(s: string): number
  stringToUTF8(s: string, ptr: Ptr, max: number): void
  _QTS_Eval(ctx: Ptr, code: Ptr, length: number, filename: Ptr, detectModule: number, flags: number): Ptr
  _QTS_NewFunction(ctx: Ptr, name: Ptr, length: number, isConstructor: number, hostRefId: number): Ptr
  _QTS_DefineProp(
    ctx: Ptr,
    obj: Ptr,
    key: Ptr,
    value: Ptr,
    get: Ptr,
    set: Ptr,
    configurable: number,
    enumerable: number,
    hasValue: number,
  ): void
}

interface Ffi {
  module: EmscriptenModule
  QTS_NewString(ctx: Ptr, chars: Ptr): Ptr
  QTS_GetProp(ctx: Ptr, obj: Ptr, key: Ptr): Ptr
  QTS_SetProp(ctx: Ptr, obj: Ptr, key: Ptr, value: Ptr): void
  QTS_FreeValuePointer(ctx: Ptr, value: Ptr): void
  QTS_Call(ctx: Ptr, fn: Ptr, self: Ptr, argc: number, argv: Ptr): Ptr
  QTS_ResolveException(ctx: Ptr, value: Ptr): Ptr
  QTS_GetUndefined(): Ptr
  QTS_GetFloat64(ctx: Ptr, value: Ptr): number
  QTS_Typeof(ctx: Ptr, value: Ptr): Ptr
  QTS_NewPromiseCapability(ctx: Ptr, resolvers: Ptr): Ptr
  QTS_ExecutePendingJob(rt: Ptr, max: number, lastContext: Ptr): Ptr
  QTS_FreeValuePointerRuntime(rt: Ptr, value: Ptr): void
  QTS_ArgvGetJSValueConstPointer(argv: Ptr, index: number): Ptr
  QTS_DupValuePointer(ctx: Ptr, value: Ptr): Ptr
  QTS_Throw(ctx: Ptr, error: Ptr): Ptr
}

/** The context's side of QuickJS → host calls (the module looks it up by context pointer on every call). */
export interface ContextCallbacks {
  callFunction(ctx: Ptr, self: Ptr, argc: number, argv: Ptr, hostRefId: number): Ptr
}

/** The parts of a `QuickJSContext` this reads (protected in its types). */
export interface ContextInside {
  ffi: Ffi
  ctx: { value: Ptr }
  rt: { value: Ptr }
  memory: { heapValueHandle(ptr: Ptr): QuickJSHandle; copyJSValue(ptr: Ptr): Ptr; freeJSValue(ptr: Ptr): void }
  runtime: { hostRefs: { put(value: unknown): number; get(id: number): unknown; delete(id: number): void } }
  cToHostCallbacks: ContextCallbacks
  errorToHandle(error: unknown): QuickJSHandle
}

/** The parts of `ctx` the direct calls use, or undefined where they are not what 0.32 has. */
export function insideOf(ctx: QuickJSContext): ContextInside | undefined {
  const inside = ctx as unknown as Partial<ContextInside>
  const ffi = inside.ffi
  const m = ffi?.module
  if (
    !ffi ||
    !m ||
    typeof inside.ctx?.value !== 'number' ||
    typeof inside.rt?.value !== 'number' ||
    typeof inside.memory?.heapValueHandle !== 'function' ||
    typeof inside.runtime?.hostRefs?.put !== 'function' ||
    typeof inside.runtime.hostRefs.get !== 'function' ||
    typeof inside.memory.copyJSValue !== 'function' ||
    typeof inside.memory.freeJSValue !== 'function' ||
    typeof inside.cToHostCallbacks?.callFunction !== 'function' ||
    typeof inside.errorToHandle !== 'function' ||
    !(m.HEAPU8 instanceof Uint8Array) ||
    !hasFunctions(ffi, FFI_FUNCTIONS) ||
    !hasFunctions(m, MODULE_FUNCTIONS)
  )
    return undefined
  return inside as ContextInside
}

/** The FFI functions and module exports the direct calls use; one missing and the public API is used instead. */
const FFI_FUNCTIONS = [
  'QTS_ArgvGetJSValueConstPointer',
  'QTS_DupValuePointer',
  'QTS_Throw',
  'QTS_NewString',
  'QTS_Call',
  'QTS_Typeof',
  'QTS_NewPromiseCapability',
  'QTS_ExecutePendingJob',
  'QTS_FreeValuePointerRuntime',
] as const
const MODULE_FUNCTIONS = [
  '_malloc',
  '_free',
  'UTF8ToString',
  'lengthBytesUTF8',
  'stringToUTF8',
  '_QTS_Eval',
  '_QTS_NewFunction',
  '_QTS_DefineProp',
] as const

function hasFunctions(target: object, names: readonly string[]): boolean {
  return names.every(name => typeof (target as Record<string, unknown>)[name] === 'function')
}
