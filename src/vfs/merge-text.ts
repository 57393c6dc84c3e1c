import type { ChangeObject } from 'diff'
import type { MergeConflict, MergeHunk } from './history-types.js'

type DiffArrays = typeof import('diff').diffArrays
type Diff3Merge = typeof import('node-diff3').diff3Merge

/** The two libraries a merge runs on, loaded by the first merge (most processes never merge). */
export interface MergeLibs {
  diffArrays: DiffArrays
  diff3Merge: Diff3Merge
}

/** The bounds one file's merge runs within (from DiffLimits; see merge-files.ts). */
export interface TextMergeBounds {
  maxEditLength: number
  /** Milliseconds each of the two line diffs may run. */
  timeoutMs: number
}

/**
 * Lines (base + ours + theirs) of one region changed with no untouched line between its edits,
 * above which the region is not handed to node-diff3. Its LCS (Hunt–McIlroy with a linear scan)
 * is super-linear in a region's lines and cubic-like when lines repeat: 500 blank lines took
 * 0.3 s, 4,000 took 100 s here. At this bound the worst shape (all lines equal) stays near 10 ms.
 */
export const MAX_REGION_LINES = 300

/** At most this many hunks, and this many bytes of their texts, in one conflict. */
const MAX_HUNKS = 50
const MAX_HUNK_BYTES = 64 * 1024

export type TextMerge = { ok: true; text: string } | { ok: false; conflict: MergeConflict }

/**
 * Three-way merge of one text file, bounded: node-diff3 decides every region both sides changed,
 * but only on the regions themselves. The `diff` package's Myers diff (base→ours, base→theirs,
 * O(N·D), stopped at the edit-length and time bounds) finds the base lines neither side touched;
 * the files are cut at those, the untouched stretches are kept as they are, and node-diff3 merges
 * each region both changed (each at most MAX_REGION_LINES); a region one side alone changed is
 * that side's. Adjacent edits stay in one region, so they conflict as diff3 has them do; identical
 * edits on both sides merge.
 */
export function mergeText(libs: MergeLibs, base: string, ours: string, theirs: string, bounds: TextMergeBounds): TextMerge {
  const o = linesOf(base)
  const a = linesOf(ours)
  const b = linesOf(theirs)
  // Lines common to all three at the start and the end need no diff.
  let head = 0
  while (head < o.length && head < a.length && head < b.length && o[head] === a[head] && o[head] === b[head]) head++
  let tail = 0
  while (
    tail < o.length - head &&
    tail < a.length - head &&
    tail < b.length - head &&
    o[o.length - 1 - tail] === a[a.length - 1 - tail] &&
    o[o.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const mid = (x: string[]) => x.slice(head, x.length - tail)
  const [mo, ma, mb] = [mid(o), mid(a), mid(b)]
  const sideA = sideOf(libs, mo, ma, bounds)
  if ('reason' in sideA) return { ok: false, conflict: sideA }
  const sideB = sideOf(libs, mo, mb, bounds)
  if ('reason' in sideB) return { ok: false, conflict: sideB }
  const out: string[] = []
  append(out, o, 0, head)
  const hunks: MergeHunk[] = []
  // Untouched stretches are copied lazily (from `copied` on); a changed region goes to node-diff3.
  let copied = 0
  let start = 0
  let [dirtyA, dirtyB] = [false, false]
  for (let p = 1; p <= mo.length; p++) {
    dirtyA ||= touched(sideA, p - 1)
    dirtyB ||= touched(sideB, p - 1)
    if (p < mo.length && !(cuttable(sideA, p) && cuttable(sideB, p))) continue
    if (p === mo.length) [dirtyA, dirtyB] = [dirtyA || sideA.insertedAt[p] === 1, dirtyB || sideB.insertedAt[p] === 1]
    if (dirtyA || dirtyB) append(out, mo, copied, start)
    // A region one side alone changed is that side's (as diff3 has it); both: node-diff3 decides.
    if (dirtyA !== dirtyB) {
      const [side, lines] = dirtyA ? [sideA, ma] : [sideB, mb]
      append(out, lines, side.at(start), side.at(p))
    } else if (dirtyA) {
      const [so, sa, sb] = [mo.slice(start, p), ma.slice(sideA.at(start), sideA.at(p)), mb.slice(sideB.at(start), sideB.at(p))]
      if (so.length + sa.length + sb.length > MAX_REGION_LINES) return { ok: false, conflict: tooDense() }
      const origin = { o: head + start, a: head + sideA.at(start), b: head + sideB.at(start) }
      for (const region of libs.diff3Merge(sa, so, sb, { excludeFalseConflicts: true })) {
        if (region.ok) append(out, region.ok, 0, region.ok.length)
        else if (region.conflict) hunks.push(hunkOf(region.conflict, origin))
      }
    }
    if (dirtyA || dirtyB) copied = p
    start = p
    ;[dirtyA, dirtyB] = [false, false]
  }
  append(out, mo, copied, mo.length)
  if (mo.length === 0 && (ma.length > 0 || mb.length > 0)) {
    // Both sides inserted at the same point (nothing of the base between): one region.
    if (ma.length + mb.length > MAX_REGION_LINES) return { ok: false, conflict: tooDense() }
    for (const region of libs.diff3Merge(ma, [], mb, { excludeFalseConflicts: true })) {
      if (region.ok) append(out, region.ok, 0, region.ok.length)
      else if (region.conflict) hunks.push(hunkOf(region.conflict, { o: head, a: head, b: head }))
    }
  }
  if (hunks.length > 0) return { ok: false, conflict: overlap(hunks) }
  append(out, o, o.length - tail, o.length)
  return { ok: true, text: out.join('\n') }
}

/** One side's line diff against the base: which base lines it kept, where they are, where it inserted. */
interface Side {
  /** Base line i is unchanged on this side. */
  kept: Uint8Array
  /** This side inserted lines just before base line i (i = base length: at the end). */
  insertedAt: Uint8Array
  /** Index in this side of base line i when kept; `at(base length)` is the side's length. */
  at: (i: number) => number
}

function sideOf(libs: MergeLibs, base: string[], side: string[], bounds: TextMergeBounds): Side | MergeConflict {
  const kept = new Uint8Array(base.length)
  const insertedAt = new Uint8Array(base.length + 1)
  const position = new Int32Array(base.length + 1)
  // Lines this side shares with the base at the start and the end are kept as they are: besides
  // sparing the diff, it keeps an edit where it was made (among repeated lines, a shortest diff
  // may put it anywhere: an edit of the first blank line could come out as one of the last).
  let head = 0
  while (head < base.length && head < side.length && base[head] === side[head]) head++
  let tail = 0
  while (tail < base.length - head && tail < side.length - head && base[base.length - 1 - tail] === side[side.length - 1 - tail]) tail++
  for (let i = 0; i < head; i++) {
    kept[i] = 1
    position[i] = i
  }
  for (let k = 1; k <= tail; k++) {
    kept[base.length - k] = 1
    position[base.length - k] = side.length - k
  }
  position[base.length] = side.length
  const middle = { base: base.slice(head, base.length - tail), side: side.slice(head, side.length - tail) }
  const at = (n: number) => (n === 0 ? 0 : position[n])
  if (middle.base.length === 0) {
    if (middle.side.length > 0) insertedAt[head] = 1
    return { kept, insertedAt, at }
  }
  // All of the base's middle removed needs no diff; otherwise a bounded one.
  let changes: ChangeObject<string[]>[] = [{ value: middle.base, count: middle.base.length, added: false, removed: true }]
  // One line replaced by one other (the common edit): nothing to diff, they differ (else trimmed).
  if (middle.base.length === 1 && middle.side.length === 1) changes.push({ value: middle.side, count: 1, added: true, removed: false })
  else if (middle.side.length > 0) {
    const started = Date.now()
    const diffed = libs.diffArrays(middle.base, middle.side, { maxEditLength: bounds.maxEditLength, timeout: bounds.timeoutMs })
    if (!diffed) return Date.now() - started >= bounds.timeoutMs ? outOfTime() : tooManyEdits()
    changes = diffed
  }
  let i = head
  let j = head
  for (const change of changes) {
    if (change.added) {
      insertedAt[i] = 1
      j += change.count
    } else if (change.removed) i += change.count
    else
      for (let k = 0; k < change.count; k++) {
        kept[i] = 1
        position[i++] = j++
      }
  }
  return { kept, insertedAt, at }
}

/**
 * The files may be cut just before base line p on this side: it kept lines p-1 and p and inserted
 * nothing between them, so no edit of this side touches the cut (diff3 joins touching edits).
 */
const cuttable = (side: Side, p: number) => side.kept[p - 1] === 1 && side.kept[p] === 1 && side.insertedAt[p] === 0

/** Base line i is changed on this side, or the side inserted lines just before it. */
const touched = (side: Side, i: number) => side.kept[i] === 0 || side.insertedAt[i] === 1

/** Pushes x[from..to) one by one: a spread of a whole file's lines would overflow the stack. */
function append(out: string[], x: readonly string[], from: number, to: number): void {
  for (let i = from; i < to; i++) out.push(x[i])
}

/**
 * The lines of a text, split at each `\n` (a text ending with one has an empty last line), so that
 * joining them with `\n` gives the text back exactly (a `\r` stays in its line). `split` with a
 * string, not a lookbehind regex that kept the endings: that one cost most of a small file's merge.
 */
export function linesOf(text: string): string[] {
  return text.split('\n')
}

type Diff3Conflict = { a: string[]; aIndex: number; o: string[]; oIndex: number; b: string[]; bIndex: number }

function hunkOf(c: Diff3Conflict, origin: { o: number; a: number; b: number }): MergeHunk {
  return {
    base: { line: origin.o + c.oIndex + 1, text: shown(c.o) },
    ours: { line: origin.a + c.aIndex + 1, text: shown(c.a) },
    theirs: { line: origin.b + c.bIndex + 1, text: shown(c.b) },
  }
}

/** A hunk's lines as a client shows them, each ending with a newline. */
const shown = (lines: string[]) => lines.map(l => l + '\n').join('')

function overlap(hunks: MergeHunk[]): MergeConflict {
  const kept: MergeHunk[] = []
  let bytes = 0
  for (const h of hunks.slice(0, MAX_HUNKS)) {
    bytes += h.base.text.length + h.ours.text.length + h.theirs.text.length
    if (bytes > MAX_HUNK_BYTES) break
    kept.push(h)
  }
  const shown = kept.length < hunks.length ? ` (the first ${kept.length} shown)` : ''
  return {
    reason: 'overlap',
    message: `both sides changed the same lines: ${hunks.length} overlapping hunk${hunks.length === 1 ? '' : 's'}${shown}`,
    hunks: kept,
  }
}

const tooDense = (): MergeConflict => ({
  reason: 'edits',
  message: `too many changed lines close together to merge line by line (over ${MAX_REGION_LINES} lines in one changed region)`,
})
const tooManyEdits = (): MergeConflict => ({
  reason: 'edits',
  message: 'too many changed lines to merge line by line (over the edit-length bound)',
})
const outOfTime = (): MergeConflict => ({ reason: 'time', message: 'too large to merge line by line (the line diff ran out of time)' })
