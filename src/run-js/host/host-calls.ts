import type { Vfs } from '../../vfs/types.js'
import { toGuestError } from '../guest/host-error.js'
import { stringifyForGuest } from '../guest/host-json.js'
import { LOCAL_VFS_API, type Answer, type VfsCall } from '../guest/guest-api.js'
import type { Journal } from './journal.js'
import { isRunJsSuspension } from './suspension.js'
import { validateInput, type BoundTool } from './tools.js'
import type { GuestError, HostCallAnswer } from '../types.js'

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
  private readonly working = new Set<Promise<unknown>>()
  /** The program asked a person or left its journal: no call is answered any more. */
  private parked = false

  /** What the guest API's calls (kind 'guest') use of the run, as an in-thread run's would. */
  private readonly guest: VfsCall | undefined

  constructor(
    private readonly vfs: Vfs | undefined,
    private readonly tools: ReadonlyMap<string, BoundTool>,
    /** A suspendable run's journal (the same rules as the in-thread dispatch: host/journal.ts). */
    private readonly journal?: Journal,
    /** A call asks a person (`request`), or the replay left the journal (`diverged`): stop the program. */
    private readonly onPark?: (park: { call: string; request: unknown } | { diverged: GuestError }) => void,
    /** The run's deadline (`Date.now()` time) and the runner's archive, for searches. */
    run: { deadline: number; archiveDir?: string; readText?: VfsCall['readText'] } = { deadline: Infinity },
  ) {
    // The write budget is charged where the program runs, before its call crosses (guest-api.ts).
    this.guest = vfs && {
      vfs,
      clock: { signal: this.ended.signal, deadline: run.deadline },
      archiveDir: run.archiveDir,
      readText: run.readText,
    }
  }

  /** Resolves once no call started for the program is running (their outcomes are journaled by then). */
  async quiesce(): Promise<void> {
    while (this.working.size > 0) await Promise.allSettled([...this.working])
  }

  /** The run is over: refuse later calls and tell running tools and searches to stop. */
  end(): void {
    this.ended.abort('ended')
  }

  /** Answers one call; never rejects. */
  call(kind: 'guest' | 'vfs' | 'tool' | 'archive', name: string, args: unknown[]): Promise<HostCallAnswer> {
    // The runner's own file operations (archive, modules) are not the program's: never journaled (in-thread they are direct too).
    if (kind === 'archive') return this.live('vfs', name, args).then(a => ('parked' in a ? refusedAsk(`vfs.${name}`) : a))
    if (this.parked) return new Promise(() => {}) // the program is being stopped
    // Named as the program sees it: `external_ask_user`, `vfs.write` (a 'vfs' call by its method: `vfs.writeFile`).
    const call = kind === 'tool' ? (this.tools.get(name)?.globalName ?? name) : `vfs.${name}`
    const journal = this.journal
    if (!journal || !Array.isArray(args)) return this.live(kind, name, args).then(a => ('parked' in a ? refusedAsk(call) : a))
    // A search's deadline is the run's own, different on every run: not part of what must match.
    const compared = kind === 'vfs' && SEARCHES.has(name) && isObject(args[1]) ? [args[0], { ...args[1], deadline: 0 }] : args
    const turn = journal.next(call, compared)
    if ('replay' in turn) return Promise.resolve({ ok: true, value: fromAnswer(turn.replay, kind) })
    if ('replayError' in turn) return Promise.resolve({ ok: false, error: turn.replayError })
    if ('diverged' in turn) {
      this.park({ diverged: turn.diverged })
      return Promise.resolve({ ok: false, error: turn.diverged })
    }
    const index = turn.live
    const work = this.live(kind, name, args).then((answer): HostCallAnswer | Parked => {
      if ('parked' in answer) {
        const refused = journal.ask(index, answer.parked)
        if (refused) return { ok: false, error: refused }
        this.park({ call, request: answer.parked })
        return answer
      }
      journal.record(index, answer.ok ? { answer: toAnswer(answer.value, kind) } : { error: answer.error })
      return answer
    })
    this.working.add(work)
    void work.finally(() => this.working.delete(work))
    // The call that asked keeps its question in the journal; the program gets no answer in this run.
    return work.then(a => ('parked' in a ? new Promise<HostCallAnswer>(() => {}) : a))
  }

  /**
   * The program read the clock in another thread and got `time`: journaled as the in-thread dispatch
   * journals `Date.now` (a replayed reading is checked for its place; a reading out of place diverges).
   */
  clockRead(time: number): void {
    const journal = this.journal
    if (!journal || this.parked) return
    const turn = journal.next('Date.now', [])
    if ('diverged' in turn) this.park({ diverged: turn.diverged })
    else if ('live' in turn) journal.record(turn.live, { answer: { kind: 'json', value: time } })
  }

  private park(park: Parameters<NonNullable<HostCalls['onPark']>>[0]): void {
    if (this.parked) return
    this.parked = true
    this.onPark?.(park)
  }

  /** Does the call; `parked` holds what a host function that waits for a person asks. */
  private async live(kind: 'guest' | 'vfs' | 'tool', name: string, args: unknown[]): Promise<HostCallAnswer | Parked> {
    try {
      if (this.ended.signal.aborted) throw new Error('the run has ended')
      if (!Array.isArray(args)) throw new TypeError('the arguments of a host call must be an array')
      const value =
        kind === 'tool'
          ? await this.callTool(name, args[0])
          : kind === 'guest'
            ? await this.callGuest(name, args)
            : await this.callVfs(name, args)
      return { ok: true, value }
    } catch (error) {
      if (!isRunJsSuspension(error)) return { ok: false, error: toGuestError(error) }
      return { parked: error.request }
    }
  }

  /** A function of the program's `vfs` object, done here as an in-thread run does it (its answer crosses as is). */
  private callGuest(name: string, args: unknown[]): Promise<Answer> {
    const f = LOCAL_VFS_API.get(name)
    const c = this.guest
    if (!c || !f) throw named('NotAllowedError', `vfs.${name} is not available to this program`)
    return f.call(c, args)
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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An executor's answer value as the journal keeps it (an in-thread run's answer: a tool's value as JSON, not its text). */
function toAnswer(value: unknown, kind: 'guest' | 'vfs' | 'tool'): Answer {
  if (kind === 'guest') return value as Answer
  if (kind === 'tool') return value === '' ? { kind: 'none' } : { kind: 'json', value: JSON.parse(value as string) }
  if (value === undefined) return { kind: 'none' }
  if (typeof value === 'string') return { kind: 'text', text: value }
  if (value instanceof Uint8Array) return { kind: 'bytes', bytes: value }
  return { kind: 'json', value }
}

/** A journaled answer as the executor takes it (a tool's value is its JSON text, '' for undefined). */
function fromAnswer(answer: Answer, kind: 'guest' | 'vfs' | 'tool'): unknown {
  if (kind === 'guest') return answer
  if (kind === 'tool' && answer.kind !== 'text') return answer.kind === 'json' ? (JSON.stringify(answer.value) ?? '') : ''
  switch (answer.kind) {
    case 'none':
      return undefined
    case 'text':
      return answer.text
    case 'bytes':
      return answer.bytes
    case 'json':
      return answer.value
  }
}

/** A host function waits for a person: what it asks. */
interface Parked {
  parked: unknown
}

function refusedAsk(name: string): HostCallAnswer {
  const message = `${name} waits for a person, but this run cannot wait for an answer (it was not started as suspendable)`
  return { ok: false, error: { name: 'SuspendError', message } }
}
