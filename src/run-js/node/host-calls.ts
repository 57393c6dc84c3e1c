import { toGuestError } from '../bridge.js'
import { bindTools, validateInput, type BoundTool } from '../tools.js'
import type { RunJsJob } from '../types.js'
import { FORWARDED_VFS_METHODS, type AnswerMessage, type CallMessage } from './protocol.js'

const FORWARDED: ReadonlySet<string> = new Set(FORWARDED_VFS_METHODS)

/**
 * The host half of one run in a worker thread: answers the worker's file operations and tool calls
 * against the job's workspace and tools, as the in-thread bridge would, until the run ends. Tools get
 * a signal that aborts when it does.
 */
export class HostCalls {
  private readonly tools: Map<string, BoundTool>
  private readonly ended = new AbortController()

  constructor(private readonly job: RunJsJob) {
    this.tools = bindTools(job.tools)
  }

  /** Whether the run has ended (then nothing more is answered). */
  get isEnded(): boolean {
    return this.ended.signal.aborted
  }

  /** The run is over: refuse later calls and tell running tools to stop. */
  end(): void {
    this.ended.abort()
  }

  async answer(message: CallMessage): Promise<AnswerMessage> {
    try {
      if (this.isEnded) throw new Error('the run has ended')
      const value = message.kind === 'tool' ? await this.callTool(message.name, message.args[0]) : await this.callVfs(message.name, message.args)
      return { type: 'answer', call: message.call, ok: true, value }
    } catch (error) {
      return { type: 'answer', call: message.call, ok: false, error: toGuestError(error) }
    }
  }

  private callVfs(method: string, args: unknown[]): Promise<unknown> {
    const vfs = this.job.vfs
    if (!vfs || !FORWARDED.has(method) || !Array.isArray(args)) return Promise.reject(named('NotAllowedError', `vfs.${method} is not available to this program`))
    return (vfs[method as keyof typeof vfs] as (...a: unknown[]) => Promise<unknown>).apply(vfs, args)
  }

  /** Same checks and JSON as the in-thread bridge; the JSON text is what crosses back. */
  private async callTool(id: string, input: unknown): Promise<string> {
    const tool = this.tools.get(id)
    if (!tool) throw named('NotAllowedError', `tool ${JSON.stringify(id)} is not available to this program`)
    const output = await tool.execute(await validateInput(tool, input), { signal: this.ended.signal })
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

function named(name: string, message: string): Error {
  const error = new Error(message)
  error.name = name
  return error
}
