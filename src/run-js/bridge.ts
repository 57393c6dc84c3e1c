import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, Scope } from 'quickjs-emscripten-core'
import type { Vfs } from '../vfs/types.js'
import type { RunClock } from './clock.js'
import { CONSOLE_METHODS, VFS_API, type Answer, type ArgKind, type Data, type GuestFunction, type VfsCall } from './guest-api.js'
import { parseBoundedJson, safeMessage, stringifyForGuest } from './host-json.js'
import { HelperFailed, type Intrinsics } from './intrinsics.js'
import { LogBuffer } from './logs.js'
import { utf8Length } from './result.js'
import { validateInput, type BoundTool } from './tools.js'

/** What a bridge needs from its run. */
export interface BridgeOptions {
  vfs?: Vfs
  /** The workspace's synchronous text reader (see src/vfs/read-now.ts); `vfs.read` then answers at once. */
  readText?: (path: string) => string
  /** The runner's archive of programs (left out of the guest's glob and grep). */
  archiveDir?: string
  tools: ReadonlyMap<string, BoundTool>
  /** The run's clock: host work gets its signal and deadline. */
  clock: RunClock
  logChars: number
  /**
   * Largest value (UTF-8 bytes) crossing the bridge at once, either way. quickjs-emscripten copies
   * strings and bytes into the capped memory without checking malloc, and the host copies what the
   * guest sends: both stay well under the memory cap.
   */
  maxBytes: number
  /** A host call settled its guest promise: the run should execute pending jobs. */
  onSettled: () => void
  /** An exception came out of wasm while answering the guest: the instance cannot be trusted. */
  onHostError: (error: unknown) => void
}

/** A host error as the guest sees it. */
export interface GuestError {
  name: string
  message: string
  code?: string
}

/** A guest value the host could not take: the guest gets a host error, or its own exception back. */
class Refused {
  constructor(readonly error: GuestError | { guest: QuickJSHandle }) {}
}

/** What a host function returns: a value, a guest exception to throw, or nothing. */
type HostReturn = QuickJSHandle | { error: QuickJSHandle } | undefined

/**
 * The host half of the guest API for one context: it defines `vfs`, `console` and `external_*` as
 * frozen objects of host functions (no guest source is parsed for them), takes the guest's
 * arguments, does the work and answers. Every asynchronous call gets a guest promise this bridge
 * owns until it settles or the run closes it; a call completing after `close()` touches nothing.
 */
export class Bridge {
  readonly logs: LogBuffer
  private readonly inFlight = new Set<QuickJSDeferredPromise>()
  private closed = false
  private readonly vfsCall: VfsCall | undefined

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly scope: Scope,
    private readonly k: Intrinsics,
    private readonly options: BridgeOptions,
  ) {
    this.logs = new LogBuffer(options.logChars)
    this.vfsCall = options.vfs ? { vfs: options.vfs, clock: options.clock, readText: options.readText, archiveDir: options.archiveDir } : undefined
  }

  /** Defines the guest globals. Runs before any guest code. */
  install(): void {
    const { ctx } = this
    if (this.vfsCall) {
      const call = this.vfsCall
      const vfs = this.scope.manage(ctx.newObject())
      for (const f of VFS_API) {
        const fn = ctx.newFunction(f.name, (...args) => this.entry(() => this.vfsFunction(f, call, args)))
        ctx.setProp(vfs, f.name, fn)
        fn.dispose()
      }
      this.defineGlobal('vfs', vfs)
    }
    const console = this.scope.manage(ctx.newObject())
    for (const level of CONSOLE_METHODS) {
      const fn = ctx.newFunction(level, (...args) => this.entry(() => this.log(args)))
      ctx.setProp(console, level, fn)
      fn.dispose()
    }
    this.defineGlobal('console', console)
    for (const tool of this.options.tools.values()) {
      const fn = this.scope.manage(ctx.newFunction(tool.globalName, (input) => this.entry(() => this.toolFunction(tool, input))))
      this.defineGlobal(tool.globalName, fn)
    }
  }

  /** Frozen, non-writable, non-configurable: a program cannot swap the API for the next caller. */
  private defineGlobal(name: string, value: QuickJSHandle): void {
    const frozen = this.k.call('Object.freeze', this.ctx.undefined, value)
    if (frozen.error) {
      frozen.error.dispose()
      throw new Error(`run_js could not freeze ${name}`)
    }
    frozen.value.dispose()
    this.ctx.defineProp(this.ctx.global, name, { value, configurable: false, enumerable: false })
  }

  /** Number of host calls whose guest promise is still open. */
  get pending(): number {
    return this.inFlight.size
  }

  /** Drops every open guest promise. Calls completing later are ignored. */
  close(): void {
    this.closed = true
    for (const deferred of this.inFlight) if (deferred.alive) deferred.dispose()
    this.inFlight.clear()
  }

  /**
   * Every host function runs through here: an exception out of wasm poisons the run, and nothing
   * else the host does may throw into QuickJS's callback (which would print and return null).
   */
  private entry(body: () => HostReturn): HostReturn {
    if (this.closed) return undefined
    try {
      return body()
    } catch (error) {
      // A helper that could not run (the run was stopped, memory is gone) is the guest's failure.
      if (error instanceof HelperFailed) return { error: newGuestError(this.ctx, { name: 'InternalError', message: error.message }, this.options.maxBytes) }
      this.hostError(error)
      return undefined
    }
  }

  private vfsFunction(f: GuestFunction, call: VfsCall, handles: QuickJSHandle[]): HostReturn {
    const where = `vfs.${f.name}`
    const args: unknown[] = []
    for (let i = 0; i < f.args.length; i++) {
      const spec = f.args[i]
      const taken = this.take(handles[i], spec.kind, `${where}: the ${spec.name}`, where)
      if (taken instanceof Refused) return this.rejected(taken.error)
      args.push(taken)
    }
    if (f.now) {
      let answer: Answer | undefined
      try {
        answer = f.now(call, args)
      } catch (error) {
        return this.rejected(toGuestError(error))
      }
      if (answer) return this.resolved(answer)
    }
    return this.later(() => f.call(call, args))
  }

  private toolFunction(tool: BoundTool, input: QuickJSHandle | undefined): HostReturn {
    const taken = this.take(input, 'input', `the input of ${tool.globalName}`, tool.globalName)
    if (taken instanceof Refused) return this.rejected(taken.error)
    const signal = this.options.clock.signal
    return this.later(async () => {
      const value = await validateInput(tool, taken)
      const output = await tool.execute(value, { signal })
      return output === undefined ? { kind: 'none' } : { kind: 'json', value: output }
    }, `${tool.globalName} returned a value that`)
  }

  private log(handles: QuickJSHandle[]): HostReturn {
    const parts: string[] = []
    for (const h of handles) {
      const type = this.ctx.typeof(h)
      if (type === 'string') {
        const s = this.readString(h, 'a console argument')
        parts.push(s instanceof Refused ? '[too large to log]' : s)
      } else if (type === 'number' || type === 'boolean' || type === 'undefined') parts.push(String(this.ctx.dump(h)))
      else {
        const shown = this.ctx.callFunction(this.k.helper('show'), this.ctx.undefined, h)
        if (shown.error) return { error: shown.error } // interrupted: the guest sees it as a throw
        const s = this.readString(shown.value, 'a console argument')
        shown.value.dispose()
        parts.push(s instanceof Refused ? '[too large to log]' : s)
      }
    }
    this.logs.push('log', parts.join(' '))
    return undefined
  }

  /** Takes one guest argument as the host value its kind says, or refuses it. */
  private take(h: QuickJSHandle | undefined, kind: ArgKind, what: string, where: string): unknown {
    const type = h === undefined ? 'undefined' : this.ctx.typeof(h)
    if (kind === 'path') {
      if (type !== 'string') return new Refused({ name: 'TypeError', message: `${what} must be a string, got ${type === 'object' && this.isNull(h!) ? 'null' : type}` })
      return this.readString(h!, what)
    }
    if (kind === 'data') {
      if (type === 'string') {
        const text = this.readString(h!, `the data of ${where}`)
        return text instanceof Refused ? text : ({ text } satisfies Data)
      }
      if (type === 'undefined') return new Refused({ name: 'TypeError', message: `${where} needs data: a string, bytes or a JSON value` })
      return this.takeData(h!, where)
    }
    if (type === 'undefined' || (type === 'object' && this.isNull(h!))) return kind === 'options' ? {} : undefined
    const text = this.guestJson(h!, what)
    if (text instanceof Refused) return text
    const parsed = parseBoundedJson(text, what)
    if ('error' in parsed) return new Refused({ name: 'TypeError', message: parsed.error })
    if (kind === 'options' && (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))) {
      return new Refused({ name: 'TypeError', message: `${where}: options must be an object` })
    }
    return parsed.value
  }

  private isNull(h: QuickJSHandle): boolean {
    return this.ctx.sameValue(h, this.ctx.null)
  }

  /** Strict JSON of a guest value, made in the guest by the captured stringify. */
  private guestJson(h: QuickJSHandle, what: string): string | Refused {
    const label = this.ctx.newString(what)
    const r = this.ctx.callFunction(this.k.helper('json'), this.ctx.undefined, h, label)
    label.dispose()
    if (r.error) return new Refused({ guest: this.scope.manage(r.error) })
    const type = this.ctx.typeof(r.value)
    const text = type === 'string' ? this.readString(r.value, what) : new Refused({ name: 'TypeError', message: `${what} is not JSON-serializable` })
    r.value.dispose()
    return text
  }

  /** Bytes (an ArrayBuffer or a view) copied out of the guest, or its JSON as text. */
  private takeData(h: QuickJSHandle, where: string): Data | Refused {
    const r = this.ctx.callFunction(this.k.helper('data'), this.ctx.undefined, h)
    if (r.error) return new Refused({ guest: this.scope.manage(r.error) })
    try {
      if (this.ctx.typeof(r.value) === 'string') {
        const text = this.readString(r.value, `the data of ${where}`)
        return text instanceof Refused ? text : { text }
      }
      // [ArrayBuffer]: a fresh copy the helper made, so its length is the real one.
      const buffer = this.ctx.getProp(r.value, 0)
      try {
        const length = this.ctx.getNumber(this.ctx.getProp(buffer, 'byteLength').consume((l) => l.dup()))
        if (!(length >= 0)) return new Refused({ name: 'TypeError', message: `${where}: malformed bytes` })
        if (length > this.options.maxBytes) return new Refused(tooLarge(`the data of ${where}`, length, this.options.maxBytes))
        if (length === 0) return { bytes: new Uint8Array(0) }
        return { bytes: this.ctx.getArrayBuffer(buffer).consume((view) => view.value.slice()) }
      } finally {
        buffer.dispose()
      }
    } finally {
      r.value.dispose()
    }
  }

  /**
   * A guest string, copied out only if it is within the bound. quickjs-emscripten reads strings as C
   * strings, so one holding NUL (or a lone surrogate) comes out changed: then its length differs and
   * it is read again through the captured `JSON.stringify`.
   */
  private readString(h: QuickJSHandle, what: string): string | Refused {
    // The length of a string primitive is its own, read-only property: no guest code runs for it.
    const length = this.ctx.getProp(h, 'length').consume((l) => this.ctx.getNumber(l))
    const max = this.options.maxBytes
    if (length > max) return new Refused(tooLarge(what, length, max))
    let s = this.ctx.getString(h)
    if (s.length !== length) {
      const r = this.k.call('JSON.stringify', this.ctx.undefined, h)
      if (r.error) return new Refused({ guest: this.scope.manage(r.error) })
      s = JSON.parse(this.ctx.getString(r.value)) as string
      r.value.dispose()
    }
    if (length * 3 > max) {
      const bytes = utf8Length(s)
      if (bytes > max) return new Refused(tooLarge(what, bytes, max))
    }
    return s
  }

  /**
   * The program's value as JSON: a string is read (bounded) and quoted on the host; anything else is
   * stringified in the guest by the captured, strict stringify. `guest` is the guest's own exception.
   */
  resultJson(value: QuickJSHandle, isString: boolean): { json: string } | { guest: QuickJSHandle } | { refused: GuestError } {
    if (isString) {
      const s = this.readString(value, 'the result')
      if (s instanceof Refused) return 'guest' in s.error ? { guest: s.error.guest.dup() } : { refused: s.error }
      return { json: JSON.stringify(s) }
    }
    const label = this.ctx.newString('the result')
    const r = this.ctx.callFunction(this.k.helper('json'), this.ctx.undefined, value, label)
    label.dispose()
    if (r.error) return { guest: r.error }
    const json = this.ctx.typeof(r.value) === 'string' ? this.readString(r.value, 'the result') : undefined
    r.value.dispose()
    if (json === undefined) return { json: '' }
    if (json instanceof Refused) return 'guest' in json.error ? { guest: json.error.guest.dup() } : { refused: json.error }
    return { json }
  }

  /** An already-settled guest promise. */
  private resolved(answer: Answer): HostReturn {
    const value = this.toGuest(answer)
    const r = this.k.call(value.error ? 'Promise.reject' : 'Promise.resolve', this.k.get('Promise'), value.handle)
    value.handle.dispose()
    // Only when the run was stopped: the guest sees the interrupt.
    return r.error ? { error: r.error } : r.value
  }

  private rejected(error: GuestError | { guest: QuickJSHandle }): HostReturn {
    const handle = 'guest' in error ? error.guest.dup() : newGuestError(this.ctx, error, this.options.maxBytes)
    const r = this.k.call('Promise.reject', this.k.get('Promise'), handle)
    handle.dispose()
    return r.error ? { error: r.error } : r.value
  }

  /** A pending guest promise, settled when `work` does. */
  private later(work: () => Promise<Answer>, whatReturned?: string): QuickJSHandle {
    const deferred = this.ctx.newPromise()
    this.inFlight.add(deferred)
    let promise: Promise<Answer>
    try {
      promise = work()
    } catch (error) {
      promise = Promise.reject(error)
    }
    promise
      .then(
        (answer) => this.settle(deferred, () => this.toGuest(answer, whatReturned)),
        (error: unknown) => this.settle(deferred, () => ({ handle: newGuestError(this.ctx, toGuestError(error), this.options.maxBytes), error: true })),
      )
      .catch((error: unknown) => this.hostError(error))
    return deferred.handle.dup()
  }

  private settle(deferred: QuickJSDeferredPromise, make: () => GuestValue): void {
    if (this.closed || !deferred.alive) return
    this.inFlight.delete(deferred)
    try {
      let made: GuestValue
      try {
        made = make()
      } catch (error) {
        // A helper that could not run (the run was stopped, memory is gone): the call fails, not the host.
        if (!(error instanceof HelperFailed)) throw error
        made = { handle: newGuestError(this.ctx, { name: 'InternalError', message: error.message }, this.options.maxBytes), error: true }
      }
      if (made.error) deferred.reject(made.handle)
      else deferred.resolve(made.handle)
      made.handle.dispose()
      deferred.dispose()
    } catch (error) {
      // Thrown from inside wasm: nothing more may touch this context.
      this.hostError(error)
      return
    }
    this.options.onSettled()
  }

  /** An answer as a guest value, or the error the guest gets instead. Never throws for the answer's content. */
  private toGuest(answer: Answer, whatReturned = 'the answer'): GuestValue {
    const max = this.options.maxBytes
    switch (answer.kind) {
      case 'none':
        return { handle: this.ctx.undefined, error: false }
      case 'text':
        return this.guestString(answer.text)
      case 'bytes': {
        if (answer.bytes.length > max) return { handle: newGuestError(this.ctx, tooLarge('the value', answer.bytes.length, max, true), max), error: true }
        const buffer = this.ctx.newArrayBuffer(answer.bytes.slice().buffer)
        const r = this.ctx.callFunction(this.k.helper('u8'), this.ctx.undefined, buffer)
        buffer.dispose()
        return r.error ? { handle: r.error, error: true } : { handle: r.value, error: false }
      }
      case 'json': {
        if (typeof answer.value === 'boolean') return { handle: answer.value ? this.ctx.true : this.ctx.false, error: false }
        const made = stringifyForGuest(answer.value, whatReturned)
        if ('error' in made) return { handle: newGuestError(this.ctx, { name: 'TypeError', message: made.error }, max), error: true }
        const text = this.guestString(made.json)
        if (text.error) return text
        const r = this.k.call('JSON.parse', this.ctx.undefined, text.handle)
        text.handle.dispose()
        return r.error ? { handle: r.error, error: true } : { handle: r.value, error: false }
      }
    }
  }

  /** `s` as a guest string; larger than the bound, a guest RangeError E2BIG (nothing is copied). */
  private guestString(s: string): GuestValue {
    const max = this.options.maxBytes
    if (s.length * 3 > max) {
      const bytes = utf8Length(s)
      if (bytes > max) return { handle: newGuestError(this.ctx, tooLarge('the value', bytes, max, true), max), error: true }
    }
    if (s.indexOf('\u0000') < 0) return { handle: this.ctx.newString(s), error: false }
    // C strings stop at NUL: send its JSON (which escapes NUL) and parse it in the guest.
    const json = this.ctx.newString(JSON.stringify(s))
    const r = this.k.call('JSON.parse', this.ctx.undefined, json)
    json.dispose()
    return r.error ? { handle: r.error, error: true } : { handle: r.value, error: false }
  }

  private hostError(error: unknown): void {
    try {
      this.options.onHostError(error)
    } catch {
      // The run is ending anyway; nothing may escape into the host's event loop.
    }
  }
}

/** A value for the guest, or the error to reject with instead. */
interface GuestValue {
  handle: QuickJSHandle
  error: boolean
}

function tooLarge(what: string, size: number, max: number, toGuest = false): GuestError {
  const message = toGuest
    ? `the value (${size} bytes) is too large for this run's memory: at most ${max} bytes can be handed to a program at once`
    : `${what} (${size} bytes) is too large: at most ${max} bytes can cross to the host at once (a quarter of the run's memory); write it in parts`
  return { name: 'RangeError', message, code: 'E2BIG' }
}

/** Keeps name, message and a workspace error code; nothing else of the host error crosses. Never throws. */
export function toGuestError(error: unknown): GuestError {
  try {
    if (error instanceof Error) {
      const code = (error as { code?: unknown }).code
      const name = typeof error.name === 'string' && error.name ? error.name : 'Error'
      return { name, message: safeMessage(error), ...(typeof code === 'string' ? { code } : {}) }
    }
    return { name: 'Error', message: safeMessage(error) }
  } catch {
    return { name: 'Error', message: 'the host threw a value that could not be read' }
  }
}

/** Cuts a message that would not fit, like any other string. */
function clip(message: string, maxBytes: number): string {
  if (message.length * 3 <= maxBytes) return message
  const keep = Math.max(0, Math.floor(maxBytes / 3) - 1)
  return message.length > keep ? message.slice(0, keep) + '…' : message
}

function newGuestError(ctx: QuickJSContext, error: GuestError, maxBytes: number): QuickJSHandle {
  const handle = ctx.newError({ name: error.name.replace(/\u0000/g, ''), message: clip(error.message, maxBytes).replace(/\u0000/g, '\\0') })
  if (error.code !== undefined) {
    const code = ctx.newString(error.code)
    ctx.setProp(handle, 'code', code)
    code.dispose()
  }
  return handle
}
