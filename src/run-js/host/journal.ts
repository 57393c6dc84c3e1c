import type { Answer } from '../guest/guest-api.js'
import { utf8Length } from '../guest/host-json.js'
import { isLegacyJournal, isLegacyModuleRead, legacyAnswer, legacyCall, legacyRemoval } from './journal-legacy.js'
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
  /** Recorded by a worker thread before calls were named as the guest names them (journal-legacy.ts). */
  private readonly legacy: boolean

  constructor(
    limits: RunJsJournalLimits | undefined,
    resume?: RunJsResume,
    /** The runner's archive: a search replayed from a journal of before the change leaves it out (journal-legacy.ts). */
    private readonly archiveDir?: string,
  ) {
    this.limits = { ...DEFAULT_JOURNAL_LIMITS, ...limits }
    this.resume = resume
    const from = resume?.journal
    this.seed = from ? from.seed >>> 0 : (Math.random() * 2 ** 32) >>> 0
    // Copies: the caller's journal is never changed.
    this.calls = from ? from.calls.map(c => ({ ...c })) : []
    this.recorded = this.calls.length
    this.legacy = isLegacyJournal(this.calls)
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
    let i = this.position++
    const print = fingerprint(args)
    if (i < this.recorded) {
      let entry = this.calls[i]
      if (this.legacy && i === 0) {
        // A journal of before the change: the modules read ahead of the first call come first (journal-legacy.ts).
        const own = (e: RunJsJournalCall) => matches(e, call, print) || matchesLegacy(e, call, args)
        while (i < this.recorded - 1 && isLegacyModuleRead(this.calls[i]) && !own(this.calls[i])) i++
        this.position = i + 1
        entry = this.calls[i]
      }
      if (!matches(entry, call, print)) {
        const legacy = this.legacy ? this.legacyTurn(i, call, args) : undefined
        if (legacy) return legacy
        return {
          diverged: diverged(
            `host call ${i + 1} of the resumed program is ${call}(${shown(print)}), but the journal recorded ${entry.call}(${shown(entry.args)}); ` +
              'a resumed program must make the same calls with the same arguments, so nothing was done',
          ),
        }
      }
      return this.replayAt(i)
    }
    if (this.full || this.calls.length >= this.limits.maxCalls) return this.overflow()
    const entry: RunJsJournalCall = { call, args: print }
    this.bytes += entryBytes(entry)
    if (this.bytes > this.limits.maxBytes) return this.overflow()
    this.calls.push(entry)
    return { live: this.calls.length - 1 }
  }

  /** A recorded call the program made again: its answer, or the person's for the call that asked. */
  private replayAt(i: number): Turn {
    const entry = this.calls[i]
    if (this.resume?.journal.waiting === i) {
      const a = this.resume.answer
      delete entry.asked
      if ('retry' in a) return { live: i }
      if ('error' in a) return this.settleReplay(i, { error: a.error })
      return this.settleReplay(i, { answer: a.value === undefined ? { kind: 'none' } : { kind: 'json', value: a.value } })
    }
    if (entry.answer === undefined) return { live: i } // asked too, but not the one answered: ask again
    if ('error' in entry.answer) return { replayError: entry.answer.error }
    // A tool's answer as its JSON text: how worker threads recorded it before the change (journal-legacy.ts).
    if ('text' in entry.answer && entry.call.startsWith('external_')) return legacyToolAnswer(entry.answer.text)
    return { replay: decode(entry.answer) }
  }

  /** A guest call replayed against the `Vfs` method(s) a worker thread recorded for it before the change. */
  private legacyTurn(i: number, call: string, args: readonly unknown[]): Turn | undefined {
    const form = legacyCall(call, args)
    if (!form || !matches(this.calls[i], form[0], fingerprint(form[1]))) return undefined
    let turn = this.replayAt(i)
    if (call === 'vfs.remove' && 'replay' in turn) {
      // `vfs.remove` was a `vfs.stat` and then a `vfs.deleteFile` or `vfs.rmdir`: both must be there.
      if (turn.replay.kind !== 'json') return undefined
      const [name, second] = legacyRemoval(args, turn.replay.value)
      if (i + 1 >= this.recorded || !matches(this.calls[i + 1], name, fingerprint(second))) return undefined
      this.position = i + 2
      turn = this.replayAt(i + 1)
    }
    return 'replay' in turn ? { replay: legacyAnswer(call, args, turn.replay, this.archiveDir) } : turn
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

function matches(entry: RunJsJournalCall, call: string, print: string): boolean {
  return entry.call === call && entry.args === print
}

function matchesLegacy(entry: RunJsJournalCall, call: string, args: readonly unknown[]): boolean {
  const form = legacyCall(call, args)
  return form !== undefined && matches(entry, form[0], fingerprint(form[1]))
}

function legacyToolAnswer(text: string): Turn {
  if (text === '') return { replay: { kind: 'none' } }
  try {
    return { replay: { kind: 'json', value: JSON.parse(text) as unknown } }
  } catch {
    return { diverged: diverged('the journal holds a tool answer that is not JSON; it cannot be replayed') }
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
