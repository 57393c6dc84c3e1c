import type { QuickJSContext, QuickJSHandle, Scope as HandleScope } from 'quickjs-emscripten-core'
import type { GuestError } from '../types.js'
import type { Answer, ArgKind, Data } from './guest-api.js'
import { newGuestError, tooLarge } from './host-error.js'
import { parseBoundedJson, stringifyForGuest, utf8Length } from './host-json.js'
import type { Intrinsics } from './intrinsics.js'

/** A guest value the host could not take: the guest gets a host error, or its own exception back. */
export class Refused {
  constructor(readonly error: GuestError | { guest: QuickJSHandle }) {}
}

/** A value for the guest, or the error to reject with instead. */
export interface GuestValue {
  handle: QuickJSHandle
  error: boolean
}

/**
 * Values crossing the membrane of one context, both ways and bounded by `maxBytes`: guest arguments
 * taken as host values (through the captured built-ins and helpers, never anything the guest
 * replaced), and host answers made into guest values. Handles it keeps are owned by `handles`.
 */
export class GuestValues {
  /** The key `length` as a guest string, made once per context: every string argument reads it. */
  private lengthKey: QuickJSHandle | undefined

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly handles: HandleScope,
    private readonly k: Intrinsics,
    /** Largest value (UTF-8 bytes) crossing at once, either way. */
    readonly maxBytes: number,
  ) {}

  /** Takes one guest argument as the host value its kind says, or refuses it. */
  take(h: QuickJSHandle | undefined, kind: ArgKind, what: string, where: string): unknown {
    const type = h === undefined ? 'undefined' : this.k.typeof(h)
    if (kind === 'path') {
      if (type !== 'string')
        return new Refused({
          name: 'TypeError',
          message: `${what} must be a string, got ${type === 'object' && this.isNull(h!) ? 'null' : type}`,
        })
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
    if (r.error) return new Refused({ guest: this.handles.manage(r.error) })
    const type = this.k.typeof(r.value)
    const text =
      type === 'string' ? this.readString(r.value, what) : new Refused({ name: 'TypeError', message: `${what} is not JSON-serializable` })
    r.value.dispose()
    return text
  }

  /** Bytes (an ArrayBuffer or a view) copied out of the guest, or its JSON as text. */
  private takeData(h: QuickJSHandle, where: string): Data | Refused {
    const r = this.ctx.callFunction(this.k.helper('data'), this.ctx.undefined, h)
    if (r.error) return new Refused({ guest: this.handles.manage(r.error) })
    try {
      if (this.k.typeof(r.value) === 'string') {
        const text = this.readString(r.value, `the data of ${where}`)
        return text instanceof Refused ? text : { text }
      }
      // [ArrayBuffer]: a fresh copy the helper made, so its length is the real one.
      const buffer = this.ctx.getProp(r.value, 0)
      try {
        const length = this.ctx.getNumber(this.ctx.getProp(buffer, 'byteLength').consume(l => l.dup()))
        if (!(length >= 0)) return new Refused({ name: 'TypeError', message: `${where}: malformed bytes` })
        if (length > this.maxBytes) return new Refused(tooLarge(`the data of ${where}`, length, this.maxBytes))
        if (length === 0) return { bytes: new Uint8Array(0) }
        return { bytes: this.ctx.getArrayBuffer(buffer).consume(view => view.value.slice()) }
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
  readString(h: QuickJSHandle, what: string): string | Refused {
    // The length of a string primitive is its own, read-only property: no guest code runs for it.
    const key = (this.lengthKey ??= this.handles.manage(this.ctx.newString('length')))
    const length = this.k.numberAt(h, key)
    const max = this.maxBytes
    if (length > max) return new Refused(tooLarge(what, length, max))
    let s = this.ctx.getString(h)
    if (s.length !== length) {
      const r = this.k.call('JSON.stringify', this.ctx.undefined, h)
      if (r.error) return new Refused({ guest: this.handles.manage(r.error) })
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
    const json = this.k.typeof(r.value) === 'string' ? this.readString(r.value, 'the result') : undefined
    r.value.dispose()
    if (json === undefined) return { json: '' }
    if (json instanceof Refused) return 'guest' in json.error ? { guest: json.error.guest.dup() } : { refused: json.error }
    return { json }
  }

  /** An answer as a guest value, or the error the guest gets instead. Never throws for the answer's content. */
  toGuest(answer: Answer, whatReturned = 'the answer'): GuestValue {
    const max = this.maxBytes
    switch (answer.kind) {
      case 'none':
        return { handle: this.ctx.undefined, error: false }
      case 'text':
        return this.guestString(answer.text)
      case 'bytes': {
        if (answer.bytes.length > max)
          return { handle: newGuestError(this.ctx, tooLarge('the value', answer.bytes.length, max, true), max), error: true }
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
    const max = this.maxBytes
    if (s.length * 3 > max) {
      const bytes = utf8Length(s)
      if (bytes > max) return { handle: newGuestError(this.ctx, tooLarge('the value', bytes, max, true), max), error: true }
    }
    if (s.indexOf('\u0000') < 0) return { handle: this.k.newString(s), error: false }
    // C strings stop at NUL: send its JSON (which escapes NUL) and parse it in the guest.
    const json = this.k.newString(JSON.stringify(s))
    const r = this.k.call('JSON.parse', this.ctx.undefined, json)
    json.dispose()
    return r.error ? { handle: r.error, error: true } : { handle: r.value, error: false }
  }

  /** A guest Error for a host error, bounded like any string (the caller owns the handle). */
  error(error: GuestError): QuickJSHandle {
    return newGuestError(this.ctx, error, this.maxBytes)
  }
}
