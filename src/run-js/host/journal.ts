import type { Answer } from '../guest/guest-api.js'
import { utf8Length } from '../guest/host-json.js'
import type { GuestError, RunJsJournal, RunJsJournalCall, RunJsJournalLimits, RunJsResume } from '../types.js'

/** Bounds of a journal unless the run says otherwise (see docs/run-js.md, "Programs that ask and wait"). */
export const DEFAULT_JOURNAL_LIMITS: Readonly<Required<RunJsJournalLimits>> = Object.freeze({
  maxCalls: 10_000,
  maxBytes: 16 * 1024 * 1024,
})

/** What the dispatch does with one host call of a journaled run. */
export type Turn =
  /** Answered from the journal: the host does nothing. */
  | { replay: Answer }
  | { replayError: GuestError }
  /** Done by the host now; its outcome goes to {@link Journal.record} at `index` (-1: past the bound, not recorded). */
  | { live: number }
  /** The program made another call than the one recorded here: the run fails, nothing is done. */
  | { diverged: GuestError }

/** The error a run gets when its replay left the journal. */
export const DIVERGED = 'ReplayDivergedError'

/**
 * The journal of a suspendable run: every host call (file operations, tools, `Date.now`) in the
 * order the program made it, with its answer, and the seed of the program's `Math.random`. A resumed
 * run replays the program against it: a recorded call is answered from the journal (the host does
 * nothing again), the call that asked gets the person's answer, and a call that differs from the
 * record (name or arguments) ends the run with {@link DIVERGED} before the host does anything.
 * Beyond the record the calls are live and recorded. Bounded by calls and bytes: past a bound
 * nothing more is recorded, and the program can no longer ask (the asking call fails).
 */
export class Journal {
  readonly seed: number
  private readonly calls: RunJsJournalCall[]
  private readonly recorded: number
  private readonly resume: RunJsResume | undefined
  private readonly limits: Required<RunJsJournalLimits>
  private position = 0
  private bytes: number
  /** A bound was passed: the journal is incomplete and cannot be resumed. */
  full = false
  /** The index of the call that parked the program, once one did. */
  waiting: number | undefined

  constructor(limits: RunJsJournalLimits | undefined, resume?: RunJsResume) {
    this.limits = { ...DEFAULT_JOURNAL_LIMITS, ...limits }
    this.resume = resume
    const from = resume?.journal
    this.seed = from ? from.seed >>> 0 : (Math.random() * 2 ** 32) >>> 0
    // Copies: the caller's journal is never changed.
    this.calls = from ? from.calls.map(c => ({ ...c })) : []
    this.recorded = this.calls.length
    this.bytes = this.calls.reduce((n, c) => n + entryBytes(c), 0)
  }

  /** True while recorded calls remain to be replayed. */
  get replaying(): boolean {
    return this.position < this.recorded
  }

  /** The clock readings (`Date.now`) among the recorded calls, in order: what an executor's thread replays. */
  recordedTimes(): number[] {
    const times: number[] = []
    for (let i = 0; i < this.recorded; i++) {
      const { call, answer } = this.calls[i]
      if (call === 'Date.now' && answer && 'json' in answer) times.push(JSON.parse(answer.json) as number)
    }
    return times
  }

  /** Why a replay that ended here left the journal, if it did: the program ended before its recorded calls. */
  unfinished(): GuestError | undefined {
    if (this.resume === undefined || this.position >= this.recorded) return undefined
    return diverged(
      `the resumed program ended after ${this.position} of the ${this.recorded} host calls it made before it asked; ` +
        'it must make the same calls in the same order (no randomness or time from outside the journal)',
    )
  }

  /** The next host call of the program: replayed, live, or diverged. */
  next(call: string, args: readonly unknown[]): Turn {
    const i = this.position++
    const print = fingerprint(args)
    if (i < this.recorded) {
      const entry = this.calls[i]
      if (entry.call !== call || entry.args !== print)
        return {
          diverged: diverged(
            `host call ${i + 1} of the resumed program is ${call}(${shown(print)}), but the journal recorded ${entry.call}(${shown(entry.args)}); ` +
              'a resumed program must make the same calls with the same arguments, so nothing was done',
          ),
        }
      const asked = this.resume?.journal.waiting === i
      if (asked) {
        const a = this.resume!.answer
        delete entry.asked
        if ('retry' in a) return { live: i }
        if ('error' in a) return this.settleReplay(i, { error: a.error })
        return this.settleReplay(i, { answer: a.value === undefined ? { kind: 'none' } : { kind: 'json', value: a.value } })
      }
      if (entry.answer === undefined) return { live: i } // asked too, but not the one answered: ask again
      return 'error' in entry.answer ? { replayError: entry.answer.error } : { replay: decode(entry.answer) }
    }
    if (this.full || this.calls.length >= this.limits.maxCalls) return this.overflow()
    const entry: RunJsJournalCall = { call, args: print }
    this.bytes += entryBytes(entry)
    if (this.bytes > this.limits.maxBytes) return this.overflow()
    this.calls.push(entry)
    return { live: this.calls.length - 1 }
  }

  /** The outcome of a live call. */
  record(index: number, outcome: { answer: Answer } | { error: GuestError }): void {
    if (index < 0 || this.full) return
    const entry = this.calls[index]
    if (!entry) return
    entry.answer = 'error' in outcome ? { error: outcome.error } : encode(outcome.answer)
    this.bytes += answerBytes(entry.answer)
    if (this.bytes > this.limits.maxBytes) this.full = true
  }

  /**
   * The call at `index` asks a person. Returns the error the call fails with instead when the
   * program cannot wait (the journal is full).
   */
  ask(index: number, request: unknown): GuestError | undefined {
    if (index < 0 || this.full) {
      const { maxCalls, maxBytes } = this.limits
      return {
        name: 'SuspendError',
        message:
          `this call waits for a person, but the program made too many host calls before it (more than ${maxCalls} calls or ${maxBytes} bytes of answers), ` +
          'so it cannot be resumed; ask earlier, or split the work into several programs',
      }
    }
    const entry = this.calls[index]
    entry.asked = request
    delete entry.answer
    this.waiting ??= index
    return undefined
  }

  /** The journal as data, for the caller to keep with the suspended run. */
  data(): RunJsJournal {
    return {
      v: 1,
      seed: this.seed,
      calls: this.calls.map(c => ({ ...c })),
      ...(this.waiting !== undefined ? { waiting: this.waiting } : {}),
    }
  }

  private settleReplay(i: number, outcome: { answer: Answer } | { error: GuestError }): Turn {
    this.record(i, outcome)
    return 'error' in outcome ? { replayError: outcome.error } : { replay: outcome.answer }
  }

  private overflow(): Turn {
    this.full = true
    return { live: -1 }
  }
}

function diverged(message: string): GuestError {
  return { name: DIVERGED, message }
}

function encode(answer: Answer): NonNullable<RunJsJournalCall['answer']> {
  switch (answer.kind) {
    case 'none':
      return { none: true }
    case 'text':
      return { text: answer.text }
    case 'bytes':
      return { bytes: toBase64(answer.bytes) }
    case 'json':
      return { json: JSON.stringify(answer.value) ?? 'null' }
  }
}

function decode(a: NonNullable<RunJsJournalCall['answer']>): Answer {
  if ('text' in a) return { kind: 'text', text: a.text }
  if ('bytes' in a) return { kind: 'bytes', bytes: fromBase64(a.bytes) }
  if ('json' in a) return { kind: 'json', value: JSON.parse(a.json) }
  return { kind: 'none' }
}

function entryBytes(c: RunJsJournalCall): number {
  return c.call.length + c.args.length + 16 + (c.answer ? answerBytes(c.answer) : 0)
}

function answerBytes(a: NonNullable<RunJsJournalCall['answer']>): number {
  if ('text' in a) return utf8Length(a.text)
  if ('bytes' in a) return a.bytes.length
  if ('json' in a) return utf8Length(a.json)
  if ('error' in a) return utf8Length(a.error.message) + a.error.name.length
  return 1
}

/** Arguments as the journal compares them: their JSON when short, else its length and hash (bytes by content). */
export function fingerprint(args: readonly unknown[]): string {
  const json = JSON.stringify(args, (_key, value: unknown) =>
    value instanceof Uint8Array ? `#bytes:${value.length}:${hash(value)}` : value,
  )
  return json.length <= 200 ? json : `#${json.length}:${hash(json)}`
}

function shown(print: string): string {
  return print.startsWith('[') ? print.slice(1, -1) : `arguments ${print}`
}

/** FNV-1a, 32 bits, over UTF-16 code units or bytes: a check for a changed argument, not a secret. */
function hash(data: string | Uint8Array): string {
  let h = 0x811c9dc5
  if (typeof data === 'string') for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data.charCodeAt(i), 0x01000193)
  else for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i], 0x01000193)
  return (h >>> 0).toString(36)
}

function toBase64(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text)
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i)
  return out
}
