import type { Vfs } from '../../vfs/types.js'
import { toGuestError } from '../guest/host-error.js'
import { stringifyForGuest } from '../guest/host-json.js'
import { validateInput, type BoundTool } from './tools.js'
import type { HostCallAnswer } from '../types.js'

/**
 * The workspace methods an executor's program may call on the host: what the guest API and the
 * archive use, and no more.
 */
export const HOST_VFS_METHODS = ['readFile', 'writeFile', 'readdir', 'stat', 'exists', 'rmdir', 'deleteFile', 'glob', 'grep'] as const
export type HostVfsMethod = (typeof HOST_VFS_METHODS)[number]

/** Searches: the host puts the run's own signal into their options (a signal cannot cross threads). */
const SEARCHES: ReadonlySet<string> = new Set(['glob', 'grep'])
const METHODS: ReadonlySet<string> = new Set(HOST_VFS_METHODS)

/**
 * The host half of one run that executes elsewhere (an executor's thread): answers its file
 * operations and tool calls against the runner's workspace and tools, with the same checks as the
 * in-thread dispatch (dispatch.ts), until the run ends. Tools and searches get a signal that aborts when it does.
 */
export class HostCalls {
  private readonly ended = new AbortController()

  constructor(
    private readonly vfs: Vfs | undefined,
    private readonly tools: ReadonlyMap<string, BoundTool>,
  ) {}

  /** The run is over: refuse later calls and tell running tools and searches to stop. */
  end(): void {
    this.ended.abort('ended')
  }

  /** Answers one call; never rejects. */
  async call(kind: 'vfs' | 'tool', name: string, args: unknown[]): Promise<HostCallAnswer> {
    try {
      if (this.ended.signal.aborted) throw new Error('the run has ended')
      if (!Array.isArray(args)) throw new TypeError('the arguments of a host call must be an array')
      const value = kind === 'tool' ? await this.callTool(name, args[0]) : await this.callVfs(name, args)
      return { ok: true, value }
    } catch (error) {
      return { ok: false, error: toGuestError(error) }
    }
  }

  private callVfs(method: string, args: unknown[]): Promise<unknown> {
    const vfs = this.vfs
    if (!vfs || !METHODS.has(method)) throw named('NotAllowedError', `vfs.${method} is not available to this program`)
    if (SEARCHES.has(method)) {
      // The run's deadline crosses as a number; its signal is this side's.
      const options = args[1]
      args = [args[0], { ...(options !== null && typeof options === 'object' ? options : {}), signal: this.ended.signal }]
    }
    return (vfs[method as HostVfsMethod] as (...a: unknown[]) => Promise<unknown>).apply(vfs, args)
  }

  /** Same checks and JSON as the in-thread dispatch (dispatch.ts); the JSON text is the answer. */
  private async callTool(id: string, input: unknown): Promise<string> {
    const tool = this.tools.get(id)
    if (!tool) throw named('NotAllowedError', `tool ${JSON.stringify(id)} is not available to this program`)
    const output = await tool.execute(await validateInput(tool, input), { signal: this.ended.signal })
    if (output === undefined) return ''
    const made = stringifyForGuest(output, `${tool.globalName} returned a value that`)
    if ('error' in made) throw new TypeError(made.error)
    return made.json
  }
}

function named(name: string, message: string): Error {
  const error = new Error(message)
  error.name = name
  return error
}
