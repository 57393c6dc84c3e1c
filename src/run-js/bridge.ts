import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core'
import type { Vfs } from '../vfs/types.js'
import { textReaderOf } from '../vfs/read-now.js'
import { decodeRaw, encodeRaw, HOST_CALL, HOST_LOG, HOST_READ_NOW, RAW_ARGUMENT_CALLS } from './bootstrap.js'
import { LogBuffer } from './logs.js'
import { validateInput, type BoundTool } from './tools.js'

/** What a bridge needs from its run. */
export interface BridgeOptions {
  vfs?: Vfs
  tools: ReadonlyMap<string, BoundTool>
  /** Aborted when the run ends; passed to tools. */
  signal: AbortSignal
  logChars: number
  /** Called after a host call settled its guest promise: the run should execute pending jobs. */
  onSettled: () => void
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
  /** Host calls started (vfs and tools), for tests and benchmarks. */
  dispatched = 0
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
    const readText = textReaderOf(this.options.vfs)
    if (readText) {
      // Reads come from memory: answering at once saves a deferred promise, a host event-loop
      // turn and a job pump per call. The guest still gets a promise (an already-settled one).
      const readNow = this.ctx.newFunction(HOST_READ_NOW, (path) => {
        if (this.closed) throw new Error('the run has ended')
        this.dispatched++
        try {
          return this.ctx.newString(encodeRaw(readText(this.ctx.getString(path))))
        } catch (error) {
          return newGuestError(this.ctx, toGuestError(error))
        }
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
      this.dispatched++
    } catch (error) {
      work = Promise.reject(error)
    }
    work.then(
      (answer) => this.settle(deferred, (ctx) => ctx.newString(answer), false),
      (error: unknown) => this.settle(deferred, (ctx) => newGuestError(ctx, toGuestError(error)), true),
    )
    // The caller disposes what we return; the deferred keeps its own handle until it settles.
    return deferred.handle.dup()
  }

  private settle(deferred: QuickJSDeferredPromise, make: (ctx: QuickJSContext) => QuickJSHandle, reject: boolean): void {
    if (this.closed || !deferred.alive) return
    this.inFlight.delete(deferred)
    const value = make(this.ctx)
    if (reject) deferred.reject(value)
    else deferred.resolve(value)
    value.dispose()
    deferred.dispose()
    this.options.onSettled()
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

function newGuestError(ctx: QuickJSContext, error: GuestError): QuickJSHandle {
  const handle = ctx.newError({ name: error.name, message: error.message })
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
