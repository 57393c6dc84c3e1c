import { isVfsError } from 'agent-vfs'
import { loadScopes } from 'agent-vfs/internal'
import type { ScopeSnapshot, VfsStore } from 'agent-vfs'
import { loadRecords, putJson, putLines, recordsOf, updateRecords, type RecordMap } from './records.js'
import { SEGMENT_EVENTS, scopeNames, segmentOf } from '../storage.js'
import type { EventLine, SessionEvent, SessionEventBody } from '../types.js'

/** `/log.json` in the meta scope: the newest segment started (a hint; it may lag by one) and the oldest kept. */
export interface LogHint {
  segment: number
  first: number
}
export const LOG_PATH = '/log.json'

/** Full segments kept parsed per log. */
const SEALED_CACHE = 8

/** Segments loaded per round trip of a read: those of a largest page (10,000 events), so it takes one. */
const SEGMENTS_PER_READ = 21

/** A read stops adding segments once its page holds this much JSON text (it holds at least one event). */
const PAGE_CHARS = 4 * 1024 * 1024

/** Events per commit at most; a burst beyond it takes several commits. */
const MAX_BATCH = 1000

const batchPath = (first: number) => `/${String(first).padStart(12, '0')}.jsonl`
const BATCH_FILE = /^\/(\d{12})\.jsonl$/

const decoder = new TextDecoder()
/** Lines are written `{"type":"…",` first (see commitBatch), so the type needs no parse. */
const TYPE_PREFIX = /^\{"type":"([a-z-]+)",/

interface Waiting {
  body: SessionEventBody
  resolve: (event: SessionEvent) => void
  reject: (error: unknown) => void
}

/**
 * The event log of one session: one sequence across all its executions, group committed, segmented.
 *
 * Each commit writes one new file `/<first seq>.jsonl` into the segment's scope with expected
 * version 0. Batches tile the sequence, so a writer with a stale idea of the last sequence names a
 * file that already exists and gets ECONFLICT instead of a gap or a duplicate: it reloads the
 * tail, renumbers what it has not written yet, and retries. Two hosts appending to one session
 * therefore interleave, never collide. An appended event is never rewritten, and a segment scope
 * holds at most {@link SEGMENT_EVENTS} events, so reading a range loads only its segments.
 */
export class EventLog {
  private last: number | undefined
  private queue: Waiting[] = []
  private pumping = false
  private scheduled = false
  /** Full segments as their lines, oldest evicted first. */
  private readonly sealed = new Map<number, EventLine[]>()

  constructor(
    private readonly store: VfsStore,
    private readonly namespace: string,
    readonly sessionId: string,
    /** Called after each durable commit with the events it made durable, and their lines as stored. */
    private readonly onDurable: (events: SessionEvent[], lines: EventLine[]) => void,
  ) {}

  /** Appends an event; resolves with it (numbered) once it is durable. Events queued while a commit is in flight share the next one. */
  append(body: SessionEventBody): Promise<SessionEvent> {
    return new Promise((resolve, reject) => {
      this.queue.push({ body, resolve, reject })
      // An idle log waits one task before committing, so a burst (a runner emits several events
      // between two awaits of I/O) shares the first commit instead of the first event going alone.
      if (!this.pumping && !this.scheduled) {
        this.scheduled = true
        setTimeout(() => {
          this.scheduled = false
          void this.pump()
        }, 0)
      }
    })
  }

  /** The last sequence this instance wrote or read, without asking the store (0: unknown). */
  get knownLast(): number {
    return this.last ?? 0
  }

  /** The sequence of the last durable event (0: none), as stored now. */
  async lastSeq(): Promise<number> {
    return this.findTail()
  }

  /** Up to `limit` stored events with `seq > after`, in order. */
  async read(after: number, limit = 1000, knownHint?: LogHint): Promise<SessionEvent[]> {
    return (await this.readLines(after, limit, knownHint)).map(l => JSON.parse(l.json) as SessionEvent)
  }

  /**
   * Up to `limit` stored events with `seq > after`, in order, as their stored JSON text; fewer
   * (at least one, when there are any) once the page holds {@link PAGE_CHARS} of text. Without a
   * known hint, the meta scope loads in the same round trip as the first segments: `fromMeta`
   * (default: the stored hint) sees its records and gives the hint, or throws.
   */
  async readLines(after: number, limit = 1000, hint?: LogHint | ((meta: RecordMap) => LogHint)): Promise<EventLine[]> {
    let known = typeof hint === 'object' ? hint : undefined
    const fromMeta = typeof hint === 'function' ? hint : hintOf
    let segment = Math.max(after < 1 ? 0 : segmentOf(after + 1), known?.first ?? 0)
    const out: EventLine[] = []
    let chars = 0
    for (;;) {
      // The segments this page can span, up to SEGMENTS_PER_READ at once (one round trip on stores with loadMany).
      const last = Math.min(segment + SEGMENTS_PER_READ - 1, Math.max(segment, segmentOf(Math.max(1, after + limit))))
      const { lines: loaded, meta } = await this.loadSegments(
        Array.from({ length: last - segment + 1 }, (_, i) => segment + i),
        known === undefined,
      )
      if (known === undefined) {
        known = fromMeta(recordsOf(meta!))
        // gc removed the segments asked for: start at the oldest kept.
        if (known.first > segment) {
          segment = known.first
          continue
        }
      }
      for (const [i, events] of loaded.entries()) {
        // An empty segment ends the log, unless the hint says later ones exist.
        if (events === undefined) {
          if (segment + i >= known.segment) return out.slice(0, limit)
          continue
        }
        for (const e of events) {
          if (e.seq <= after) continue
          out.push(e)
          chars += e.json.length
        }
      }
      if (out.length >= limit || chars >= PAGE_CHARS) return out.slice(0, limit)
      segment = last + 1
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH)
        await this.commitBatch(batch)
      }
    } finally {
      this.pumping = false
    }
  }

  private async commitBatch(batch: Waiting[]): Promise<void> {
    let rest = batch
    let conflicts = 0
    while (rest.length > 0) {
      try {
        const last = this.last ?? (await this.findTail())
        this.last = last
        const segment = segmentOf(last + 1)
        // A batch never crosses a segment boundary: the part beyond it goes in the next commit.
        const room = (segment + 1) * SEGMENT_EVENTS - last
        const part = rest.slice(0, room)
        const at = Date.now()
        // `type` first: a catch-up reads it from the line's start without parsing the line.
        const events = part.map((w, i) => Object.assign({ type: w.body.type }, w.body, { seq: last + 1 + i, at }) as SessionEvent)
        const lines = events.map(e => ({ seq: e.seq, type: e.type, json: JSON.stringify(e) }))
        await this.store.commit(this.namespace, scopeNames.events(this.sessionId, segment), [
          putLines(
            batchPath(last + 1),
            lines.map(l => l.json),
            0,
          ),
        ])
        this.last = last + part.length
        if (segment > 0 && last + 1 === segment * SEGMENT_EVENTS + 1) await this.advanceHint(segment)
        rest = rest.slice(part.length)
        part.forEach((w, i) => w.resolve(events[i]))
        this.onDurable(events, lines)
      } catch (error) {
        this.last = undefined
        if (isVfsError(error, 'ECONFLICT') && ++conflicts < 50) continue // another writer appended: renumber and retry
        for (const w of rest) w.reject(error)
        return
      }
    }
  }

  /** Finds the last stored sequence: from the hint's segment forward to the first empty one. */
  private async findTail(): Promise<number> {
    const hint = await this.hint()
    for (let segment = hint.segment; ; segment++) {
      const events = await this.loadSegment(segment)
      // The segment before was full (or this is the first): the log ends at its boundary.
      if (events === undefined) return segment * SEGMENT_EVENTS
      const last = events[events.length - 1].seq
      if (last < (segment + 1) * SEGMENT_EVENTS) return last
    }
  }

  private async loadSegment(segment: number): Promise<EventLine[] | undefined> {
    return (await this.loadSegments([segment], false)).lines[0]
  }

  /** Segments' events in order (undefined: an empty segment), full ones from the cache; with `meta`, the meta scope in the same round trip. */
  private async loadSegments(segments: number[], meta: boolean): Promise<{ lines: Array<EventLine[] | undefined>; meta?: ScopeSnapshot }> {
    // Taken before the await: another read may evict them meanwhile.
    const cached = new Map(segments.flatMap(s => (this.sealed.has(s) ? [[s, this.sealed.get(s)!] as const] : [])))
    const missing = segments.filter(s => !cached.has(s))
    const scopes = missing.map(s => scopeNames.events(this.sessionId, s))
    const snapshots = await loadScopes(this.store, this.namespace, meta ? [scopeNames.meta(this.sessionId), ...scopes] : scopes)
    const metaSnapshot = meta ? snapshots.shift() : undefined
    const fresh = new Map<number, EventLine[] | undefined>()
    for (const [i, snapshot] of snapshots.entries()) {
      const lines = linesOf(snapshot)
      fresh.set(missing[i], lines)
      // A full segment never changes again (only gc deletes it, whole): keep a few for observers that reconnect.
      if (lines?.length === SEGMENT_EVENTS) {
        this.sealed.set(missing[i], lines)
        if (this.sealed.size > SEALED_CACHE) this.sealed.delete(this.sealed.keys().next().value!)
      }
    }
    return { lines: segments.map(s => cached.get(s) ?? fresh.get(s)), meta: metaSnapshot }
  }

  /** Forgets cached segments (after gc deleted some). */
  dropCache(): void {
    this.sealed.clear()
  }

  async hint(): Promise<LogHint> {
    return hintOf(await loadRecords(this.store, this.namespace, scopeNames.meta(this.sessionId)))
  }

  private advanceHint(segment: number): Promise<void> {
    return updateRecords(this.store, this.namespace, scopeNames.meta(this.sessionId), records => {
      const current = records.get(LOG_PATH) as { value: LogHint; version: number } | undefined
      if (current && current.value.segment >= segment) return { ops: [], value: undefined }
      return { ops: [putJson(LOG_PATH, { segment, first: current?.value.first ?? 0 }, current?.version ?? 0)], value: undefined }
    })
  }
}

/** The log hint in a session's meta records. */
const hintOf = (records: RecordMap): LogHint => (records.get(LOG_PATH)?.value as LogHint | undefined) ?? { segment: 0, first: 0 }

/** A segment's events as their lines (undefined: the segment holds none). */
function linesOf(snapshot: ScopeSnapshot): EventLine[] | undefined {
  const files = snapshot.entries.filter(e => e.kind === 'file' && BATCH_FILE.test(e.path)).sort((a, b) => (a.path < b.path ? -1 : 1))
  if (files.length === 0) return undefined
  const out: EventLine[] = []
  for (const file of files) {
    // Batches tile the sequence: a file's lines are its first sequence onward.
    let seq = Number(BATCH_FILE.exec(file.path)![1])
    for (const json of decoder.decode(file.data).split('\n')) {
      if (json === '') continue
      const type = TYPE_PREFIX.exec(json)?.[1] ?? (JSON.parse(json) as SessionEvent).type
      out.push({ seq: seq++, type: type as EventLine['type'], json })
    }
  }
  return out
}
