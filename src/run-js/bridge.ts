import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core'
import type { Vfs } from '../vfs/types.js'
import { decodeRaw, encodeRaw, HOST_CALL, HOST_LOG, HOST_READ_NOW, RAW_ARGUMENT_CALLS } from './bootstrap.js'
import { LogBuffer } from './logs.js'
import { utf8Length } from './result.js'
import { validateInput, type BoundTool } from './tools.js'

/** What a bridge needs from its run. */
export interface BridgeOptions {
  vfs?: Vfs
  /**
   * The workspace's synchronous text reader (see src/vfs/read-now.ts); when given, `vfs.read` is
   * answered at once. It must match what the bootstrap was built with.
   */
  readText?: (path: string) => string
  tools: ReadonlyMap<string, BoundTool>
  /** Aborted when the run ends; passed to tools. */
  signal: AbortSignal
  logChars: number
  /** Called after a host call settled its guest promise: the run should execute pending jobs. */
  onSettled: () => void
  /**
   * Largest string (UTF-8 bytes) handed to the guest; larger answers become a guest RangeError with
   * code E2BIG. quickjs-emscripten copies a string into the capped wasm memory without checking
   * malloc, so an unbounded one can trap inside wasm. Default: no bound.
   */
  maxStringBytes?: number
  /**
   * Called when answering an asynchronous host call failed on the host (an exception out of wasm):
   * the instance cannot be trusted and the run must end. Without it the error is dropped.
   */
  onHostError?: (error: unknown) => void
}

/** A host error as the guest sees it. */
interface GuestError {
  name: string
  message: string
  code?: string
}

/**
 * The host half of the bridge for one context: answers the guest's calls and collects its logs.
 * Every call gets a guest promise (a deferred) that this bridge owns until it settles or the run
 * closes it; a call that completes after `close()` is dropped without touching QuickJS.
 */
export class Bridge {
  readonly logs: LogBuffer
  private readonly inFlight = new Set<QuickJSDeferredPromise>()
  private closed = false

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly options: BridgeOptions,
  ) {
    this.logs = new LogBuffer(options.logChars)
  }

  /** Defines the raw globals the bootstrap picks up (and deletes). */
  install(): void {
    const call = this.ctx.newFunction(HOST_CALL, (op, payload) => this.onCall(this.ctx.getString(op), this.ctx.getString(payload)))
    const log = this.ctx.newFunction(HOST_LOG, (level, message) => {
      this.logs.push(this.ctx.getString(level), decodeRaw(this.ctx.getString(message)))
    })
    this.ctx.setProp(this.ctx.global, HOST_CALL, call)
    this.ctx.setProp(this.ctx.global, HOST_LOG, log)
    call.dispose()
    log.dispose()
    const readText = this.options.readText
    if (readText && this.options.vfs) {
      // Reads come from memory: answering at once saves a deferred promise, a host event-loop
      // turn and a job pump per call. The guest still gets a promise (an already-settled one).
      const readNow = this.ctx.newFunction(HOST_READ_NOW, (path) => {
        if (this.closed) throw new Error('the run has ended')
        let text: string
        try {
          text = encodeRaw(readText(this.ctx.getString(path)))
        } catch (error) {
          return newGuestError(this.ctx, toGuestError(error), this.maxStringBytes)
        }
        // An oversized answer comes back as an error object, which the bootstrap rejects with.
        return guestString(this.ctx, text, this.maxStringBytes).handle
      })
      this.ctx.setProp(this.ctx.global, HOST_READ_NOW, readNow)
      readNow.dispose()
    }
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

  /** `payload` is the raw path for {@link RAW_ARGUMENT_CALLS}, JSON arguments otherwise. */
  private onCall(op: string, json: string): QuickJSHandle {
    if (this.closed) throw new Error('the run has ended')
    const deferred = this.ctx.newPromise()
    this.inFlight.add(deferred)
    let work: Promise<string>
    try {
      const args: unknown = RAW_ARGUMENT_CALLS.has(op) ? [json] : JSON.parse(json)
      work = this.dispatch(op, args)
    } catch (error) {
      work = Promise.reject(error)
    }
    const max = this.maxStringBytes
    work
      .then(
        (answer) => this.settle(deferred, (ctx) => guestString(ctx, answer, max)),
        (error: unknown) => this.settle(deferred, (ctx) => ({ handle: newGuestError(ctx, toGuestError(error), max), error: true })),
      )
      // settle() reports its own failures; this only keeps anything else from escaping as an unhandled rejection.
      .catch((error: unknown) => this.hostError(error))
    // The caller disposes what we return; the deferred keeps its own handle until it settles.
    return deferred.handle.dup()
  }

  private get maxStringBytes(): number {
    return this.options.maxStringBytes ?? Infinity
  }

  private settle(deferred: QuickJSDeferredPromise, make: (ctx: QuickJSContext) => GuestValue): void {
    if (this.closed || !deferred.alive) return
    this.inFlight.delete(deferred)
    try {
      const { handle, error } = make(this.ctx)
      if (error) deferred.reject(handle)
      else deferred.resolve(handle)
      handle.dispose()
      deferred.dispose()
    } catch (error) {
      // Thrown from inside wasm: nothing more may touch this context.
      this.hostError(error)
      return
    }
    this.options.onSettled()
  }

  private hostError(error: unknown): void {
    try {
      this.options.onHostError?.(error)
    } catch {
      // The run is ending anyway; nothing may escape into the host's event loop.
    }
  }

  private dispatch(op: string, args: unknown): Promise<string> {
    if (op === 'tool') return this.callTool(args)
    const vfs = this.options.vfs
    if (!vfs || !op.startsWith('vfs.')) return Promise.reject(named('NotAllowedError', `unknown host call "${op}"`))
    if (!Array.isArray(args)) return Promise.reject(new TypeError(`${op}: malformed arguments`))
    const [first, second] = args as unknown[]
    const name = op.slice(4)
    if (typeof first !== 'string') return Promise.reject(new TypeError(`vfs.${name}: the ${name === 'glob' || name === 'grep' ? 'pattern' : 'path'} must be a string, got ${describe(first)}`))
    switch (name) {
      case 'read':
        return vfs.readFile(first, 'utf8').then(encodeRaw)
      case 'readBytes':
        return vfs.readFile(first).then((bytes) => encodeRaw(bytesToBinary(bytes)))
      case 'write':
        if (typeof second !== 'string') return Promise.reject(new TypeError('vfs.write: data must be a string, bytes or a JSON value'))
        return vfs.writeFile(first, second).then(() => '')
      case 'writeBytes':
        if (typeof second !== 'string') return Promise.reject(new TypeError('vfs.write: malformed bytes'))
        return vfs.writeFile(first, binaryToBytes(second)).then(() => '')
      case 'list':
        return vfs.readdir(first, { recursive: option(second, 'recursive', 'vfs.list') === true }).then(JSON.stringify)
      case 'stat':
        return vfs.stat(first).then(JSON.stringify)
      case 'exists':
        return vfs.exists(first).then(JSON.stringify)
      case 'remove':
        return this.remove(vfs, first, option(second, 'recursive', 'vfs.remove') === true)
      case 'glob':
        return vfs.glob(first).then(JSON.stringify)
      case 'grep':
        return vfs.grep(first, (second ?? {}) as object).then(JSON.stringify)
      default:
        return Promise.reject(named('NotAllowedError', `vfs.${name} is not part of the guest API`))
    }
  }

  private async remove(vfs: Vfs, path: string, recursive: boolean): Promise<string> {
    const stat = await vfs.stat(path)
    if (stat.type === 'directory') await vfs.rmdir(path, { recursive })
    else await vfs.deleteFile(path)
    return ''
  }

  /** The allow-list is enforced here too: a guest cannot reach a tool it was not given, even by id. */
  private async callTool(args: unknown): Promise<string> {
    const request = args as { id?: unknown; input?: unknown } | null
    const id = typeof request?.id === 'string' ? request.id : undefined
    const tool = id === undefined ? undefined : this.options.tools.get(id)
    if (!tool) throw named('NotAllowedError', `tool ${JSON.stringify(id)} is not available to this program`)
    const input = await validateInput(tool, request?.input)
    const output = await tool.execute(input, { signal: this.options.signal })
    if (output === undefined) return ''
    let json: string | undefined
    try {
      json = JSON.stringify(output)
    } catch (error) {
      throw new TypeError(`${tool.globalName} returned a value that is not JSON-serializable: ${(error as Error).message}`)
    }
    if (json === undefined) throw new TypeError(`${tool.globalName} returned a value that is not JSON-serializable`)
    return json
  }
}

function option(options: unknown, key: string, where: string): unknown {
  if (options === null || options === undefined) return undefined
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${where}: options must be an object`)
  return (options as Record<string, unknown>)[key]
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}

function named(name: string, message: string): Error {
  const error = new Error(message)
  error.name = name
  return error
}

/** Keeps name, message and a workspace error code; nothing else of the host error crosses. */
export function toGuestError(error: unknown): GuestError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { name: error.name || 'Error', message: error.message, ...(typeof code === 'string' ? { code } : {}) }
  }
  return { name: 'Error', message: String(error) }
}

/** A value for the guest: a string, or the error to reject with instead. */
interface GuestValue {
  handle: QuickJSHandle
  error: boolean
}

/**
 * `s` as a guest string, or, when its UTF-8 form is larger than `maxBytes`, a guest RangeError with
 * code E2BIG instead: nothing is allocated for it in the capped memory.
 */
export function guestString(ctx: QuickJSContext, s: string, maxBytes: number): GuestValue {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: short strings need no count.
  if (s.length * 3 > maxBytes) {
    const bytes = utf8Length(s)
    if (bytes > maxBytes) {
      const message = `the value (${bytes} bytes) is too large for this run's memory: at most ${maxBytes} bytes can be handed to a program at once`
      return { handle: newGuestError(ctx, { name: 'RangeError', message, code: 'E2BIG' }, maxBytes), error: true }
    }
  }
  return { handle: ctx.newString(s), error: false }
}

/** Cuts a host error's message that would not fit, like any other string (see {@link guestString}). */
function clip(message: string, maxBytes: number): string {
  if (message.length * 3 <= maxBytes) return message
  const keep = Math.max(0, Math.floor(maxBytes / 3) - 1)
  return message.length > keep ? message.slice(0, keep) + '…' : message
}

function newGuestError(ctx: QuickJSContext, error: GuestError, maxBytes: number): QuickJSHandle {
  const handle = ctx.newError({ name: error.name, message: clip(error.message, maxBytes) })
  if (error.code !== undefined) {
    const code = ctx.newString(error.code)
    ctx.setProp(handle, 'code', code)
    code.dispose()
  }
  return handle
}

/** Bytes as a string of char codes 0–255: the cheapest way to move bytes as a plain string. */
function bytesToBinary(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return out
}

function binaryToBytes(binary: string): Uint8Array {
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
