import type { QuickJSContext, QuickJSHandle, Scope as HandleScope } from 'quickjs-emscripten-core'
import { DirectCalls } from '../engine/direct.js'
import type { CallResult, GuestDeferred, HostFunction } from '../engine/deferred.js'
import type { InstanceNames } from '../engine/instance-names.js'
import { NameTable } from '../engine/names.js'
import { CONSOLE_METHODS, VFS_API } from './guest-api.js'
import { PROGRAM_FILE } from './guest-error.js'

/**
 * The built-ins the host relies on inside a guest context, taken before any guest code runs: a guest
 * may replace `JSON.stringify`, `Promise.resolve`, `Object.freeze` or anything else on its global,
 * and none of it may change what the host sends, receives or believes. Read as properties (no guest
 * source is parsed for them: that is cheaper, and this happens on every run).
 */
const CAPTURED = {
  JSON: ['stringify', 'parse'],
  Object: ['freeze', 'getPrototypeOf', 'prototype'],
  Array: ['prototype'],
  Promise: ['resolve', 'reject'],
} as const

type Owner = keyof typeof CAPTURED
type Captured = `${Owner}.${(typeof CAPTURED)[Owner][number]}` | Owner | 'Uint8Array' | 'ArrayBuffer' | 'TypeError' | 'Error'
const GLOBALS = ['Uint8Array', 'ArrayBuffer', 'TypeError', 'Error'] as const

/**
 * What the constructor reads, in order (made once, not per run): each owner from the global, then its
 * keys from the owner (`from`: the index of the owner, -1 for the global).
 */
const CAPTURE: ReadonlyArray<{ name: Captured; from: number; key: string }> = (() => {
  const plan: Array<{ name: Captured; from: number; key: string }> = []
  for (const [owner, keys] of Object.entries(CAPTURED)) {
    const from = plan.push({ name: owner as Owner, from: -1, key: owner }) - 1
    for (const key of keys) plan.push({ name: `${owner}.${key}` as Captured, from, key })
  }
  for (const name of GLOBALS) plan.push({ name, from: -1, key: name })
  return plan
})()
const CAPTURE_INDEX = new Map(CAPTURE.map(({ name }, i) => [name, i]))

/** Every name the host itself uses as a key, function name or file name in a run (tools' names are the runner's: not here). */
const NAMES = new NameTable([
  ...Object.entries(CAPTURED).flat(2),
  ...GLOBALS,
  'vfs',
  'console',
  ...VFS_API.map(f => f.name),
  ...CONSOLE_METHODS,
  PROGRAM_FILE,
])

/**
 * Guest-side helpers, compiled only when a run first needs one (most runs never do): strict JSON for
 * values leaving the guest (QuickJS's bare "circular reference" is reworded to say what and at which
 * key, the last one the replacer saw), console formatting, and bytes. They reach built-ins only through the
 * captured arguments, never through the guest's global.
 */
const HELPER_SOURCE = `(function(S,gp,OP,AP,TE,E,U,AB){'use strict';
function bad(w,f,k){return new TE(w+' is not JSON-serializable: found '+f+(k===''?'':' (at '+S(k)+')'))}
function json(v,w){let at='';try{return S(v,function(k,x){at=k;const t=typeof x;
if(t==='function'||t==='symbol'||t==='bigint')throw bad(w,'a '+t,k);
if(t==='object'&&x!==null){const p=gp(x);if(p!==OP&&p!==AP&&p!==null){let c;try{c=x.constructor&&x.constructor.name}catch(e){}throw bad(w,typeof c==='string'&&c?'a '+c:'an object with a custom prototype',k)}}
return x})}catch(e){if(e instanceof TE&&e.message==='circular reference')throw bad(w,'a circular reference',at);throw e}}
function show(v){if(typeof v==='string')return v;try{if(v instanceof E)return v.name+': '+v.message}catch(e){}
try{const s=S(v);if(s!==undefined)return s}catch(e){}try{return ''+v}catch(e){return '[unprintable]'}}
function bytes(d){if(d instanceof AB)return new U(d);return new U(d.buffer,d.byteOffset,d.byteLength)}
function isBytes(d){return d instanceof AB||d instanceof U||(d!==null&&typeof d==='object'&&d.buffer instanceof AB&&typeof d.byteLength==='number')}
function data(d){if(isBytes(d)){const u=bytes(d),c=new AB(u.length);new U(c).set(u);return [c]}return json(d,'the data of vfs.write')}
return{json:json,show:show,data:data,u8:function(b){return new U(b)}}})`

/**
 * The captured built-ins and the helpers of one context. On the direct path the built-ins are bare
 * value pointers (freed at {@link close}, handles made only for those a run uses); otherwise they are
 * handles owned by the run's handle scope, as the helpers are.
 */
export class Intrinsics {
  private readonly captured: Array<QuickJSHandle | undefined> = new Array(CAPTURE.length)
  /** The direct path's captured values, by {@link CAPTURE} index. */
  private readonly pointers: Int32Array | undefined
  private readonly helpers = new Map<string, QuickJSHandle>()
  private helperObject: QuickJSHandle | undefined
  /** Direct calls into QuickJS (engine/direct.ts), unless quickjs-emscripten's internals are not the expected ones. */
  private readonly direct: DirectCalls | undefined

  /**
   * Must run before any guest code. {@link close} frees what it allocated in the guest's memory, and
   * must run before the context is disposed.
   */
  constructor(
    private readonly ctx: QuickJSContext,
    private readonly handles: HandleScope,
    /** False: quickjs-emscripten's public API only (what runs where its internals differ; tests compare both). */
    direct = true,
    /** The run's module instance: it keeps the direct calls' names for the next runs. */
    keeper?: { names?: InstanceNames },
  ) {
    const d = (this.direct = direct ? DirectCalls.open(ctx, NAMES, keeper) : undefined)
    if (d) {
      const pointers = (this.pointers = new Int32Array(CAPTURE.length))
      const global = ctx.global.value
      for (let i = 0; i < CAPTURE.length; i++) {
        const { from, key } = CAPTURE[i]
        pointers[i] = d.getPropPointer(from < 0 ? global : pointers[from], key)
      }
      return
    }
    for (let i = 0; i < CAPTURE.length; i++) {
      const { from, key } = CAPTURE[i]
      this.captured[i] = handles.manage(ctx.getProp(from < 0 ? ctx.global : this.captured[from]!, key))
    }
  }

  /** Frees the captured values and the direct calls' own memory; nothing of this may be used afterwards. */
  close(): void {
    const d = this.direct
    if (!d || !this.pointers) return
    for (let i = 0; i < this.pointers.length; i++) if (this.pointers[i]) d.freeValue(this.pointers[i])
    this.pointers.fill(0)
    d.close()
  }

  /** `obj[name]`, with no guest getter expected (the host's own names on its own objects or pristine built-ins). */
  getProp(obj: QuickJSHandle, name: string): QuickJSHandle {
    return this.direct?.has(name) ? this.direct.getProp(obj, name) : this.ctx.getProp(obj, name)
  }

  setProp(obj: QuickJSHandle, name: string, value: QuickJSHandle): void {
    if (this.direct?.has(name)) this.direct.setProp(obj, name, value)
    else this.ctx.setProp(obj, name, value)
  }

  /** A non-writable data property (configurable and enumerable as given). */
  defineValue(obj: QuickJSHandle, name: string, value: QuickJSHandle, configurable: boolean, enumerable: boolean): void {
    if (this.direct?.has(name)) this.direct.defineValue(obj, name, value, configurable, enumerable)
    else this.ctx.defineProp(obj, name, { value, configurable, enumerable })
  }

  /** A getter-only accessor `obj[name]` calling `get` on the host: non-configurable, not enumerable. */
  defineGetter(obj: QuickJSHandle, name: string, get: () => QuickJSHandle): void {
    if (!this.direct?.has(name)) return this.ctx.defineProp(obj, name, { configurable: false, enumerable: false, get })
    const fn = this.direct.newFunction(name, get)
    try {
      this.direct.defineGetter(obj, name, fn)
    } finally {
      fn.dispose()
    }
  }

  /** A guest function named `name` that calls `fn` on the host. */
  newFunction(name: string, fn: HostFunction): QuickJSHandle {
    return this.direct?.has(name) ? this.direct.newFunction(name, fn) : this.ctx.newFunction(name, fn)
  }

  /** Evaluates a script as `ctx.evalCode(code, filename)` (a global script; `filename` one of the run's own names). */
  evalCode(code: string, filename: string): CallResult {
    if (this.direct?.has(filename)) return this.direct.evalCode(code, filename)
    return this.ctx.evalCode(code, filename)
  }

  /** A guest string (up to its first NUL, as `ctx.newString`): file contents cross here. */
  newString(s: string): QuickJSHandle {
    return this.direct ? this.direct.newString(s) : this.ctx.newString(s)
  }

  /** `typeof` of a guest value. */
  typeof(h: QuickJSHandle): string {
    return this.direct ? this.direct.typeof(h) : this.ctx.typeof(h)
  }

  /** `obj[key]` as a number, for a key whose read runs no guest code (a string's `length`). */
  numberAt(obj: QuickJSHandle, key: QuickJSHandle): number {
    if (this.direct) return this.direct.numberAt(obj, key)
    const h = this.ctx.getProp(obj, key)
    const n = this.ctx.getNumber(h)
    h.dispose()
    return n
  }

  /** A guest promise the host settles. */
  newPromise(): GuestDeferred {
    return this.direct ? this.direct.newPromise() : this.ctx.newPromise()
  }

  /** Runs the runtime's pending jobs (all of this context): `{ error }` if one threw. */
  executePendingJobs(): { error?: QuickJSHandle } {
    if (this.direct) return this.direct.executePendingJobs()
    const r = this.ctx.runtime.executePendingJobs()
    if (r.error) return { error: r.error }
    r.dispose()
    return {}
  }

  /** Calls a guest function (`ctx.callFunction`, with fewer copies). */
  callFunction(fn: QuickJSHandle, self: QuickJSHandle, ...args: QuickJSHandle[]): CallResult {
    return this.direct ? this.direct.call(fn, self, ...args) : this.ctx.callFunction(fn, self, ...args)
  }

  /** A captured built-in, as it was before the guest ran. */
  get(name: Captured): QuickJSHandle {
    const i = CAPTURE_INDEX.get(name)!
    return (this.captured[i] ??= this.direct!.borrow(this.pointers![i]))
  }

  /** Calls a captured built-in with `this` (for `Promise.resolve`: the captured `Promise`). */
  call(name: Captured, self: QuickJSHandle, ...args: QuickJSHandle[]): CallResult {
    return this.callFunction(this.get(name), self, ...args)
  }

  /** A helper function (compiled on first use). */
  helper(name: 'json' | 'show' | 'data' | 'u8'): QuickJSHandle {
    let h = this.helpers.get(name)
    if (h) return h
    if (!this.helperObject) {
      const factory = this.handles.manage(
        unwrap(this.ctx.evalCode(HELPER_SOURCE, 'helpers.js', { type: 'global' }), 'compiling the helpers'),
      )
      const args = (
        [
          'JSON.stringify',
          'Object.getPrototypeOf',
          'Object.prototype',
          'Array.prototype',
          'TypeError',
          'Error',
          'Uint8Array',
          'ArrayBuffer',
        ] as const
      ).map(n => this.get(n))
      this.helperObject = this.handles.manage(unwrap(this.ctx.callFunction(factory, this.ctx.undefined, ...args), 'starting the helpers'))
    }
    this.helpers.set(name, (h = this.handles.manage(this.ctx.getProp(this.helperObject, name))))
    return h
  }
}

/**
 * The value of a host-written evaluation, or a host Error. The guest's error value is disposed
 * unread: host code fails only when the run was stopped or memory ran out, and reading it could run
 * guest code.
 */
function unwrap(result: { value?: QuickJSHandle; error?: QuickJSHandle }, doing: string): QuickJSHandle {
  if (result.error) {
    result.error.dispose()
    throw new HelperFailed(`run_js failed ${doing} (the run was stopped or out of memory)`)
  }
  return result.value!
}

/** A host-written guest function could not run: the run was stopped, or its memory is gone. */
export class HelperFailed extends Error {
  override name = 'HelperFailed'
}
