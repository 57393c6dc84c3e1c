import type { StoredEntry } from '../contract/store.js'
import { isWithin } from '../contract/paths.js'
import { diffLimits, inDiffLane, OMITTED_MESSAGES } from './diff-bounds.js'
import { sha256Hex } from './hash.js'
import type { DiffEntry, DiffOmitted, DiffOptions, VfsDiff } from './history-types.js'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

type DiffLib = Pick<typeof import('diff'), 'structuredPatch' | 'formatPatch'>
let diffLib: Promise<DiffLib> | undefined

/**
 * The `diff` package, loaded by the first diff: most processes never diff, and loading it (many small
 * modules) cost ~10 ms of a Node process's start-up, before its first run_js result. Not kept if it failed.
 */
function loadDiff(): Promise<DiffLib> {
  if (!diffLib) {
    diffLib = import('diff')
    diffLib.catch(() => (diffLib = undefined))
  }
  return diffLib
}

/** Two states of some paths: what each path held at `from` and at `to` (absent: nothing). */
export interface DiffSides {
  from: number
  to: number
  paths: Iterable<string>
  before(path: string): StoredEntry | undefined
  after(path: string): StoredEntry | undefined
}

/** One diff's bounds and what it has spent of its time budget (diff-bounds.ts). */
interface Run {
  lib: DiffLib
  options: DiffOptions
  limits: ReturnType<typeof diffLimits>
  /** `Date.now()` past which no further file gets a line diff. */
  deadline: number
}

/**
 * The diff of two states over the paths that may differ: added, changed, deleted, and moved (a
 * deleted file whose exact content was added elsewhere), with line patches for text within the
 * bounds of {@link DiffOptions} (past them: sizes, hashes and `omitted`).
 */
export async function diffStates(sides: DiffSides, options: DiffOptions = {}): Promise<VfsDiff> {
  const limits = diffLimits(options)
  const run: Run = { lib: await loadDiff(), options, limits, deadline: Date.now() + limits.budgetMs }
  const within = options.paths
  const added: string[] = []
  const deleted = new Map<string, StoredEntry>()
  const changed: string[] = []
  for (const path of new Set(sides.paths)) {
    if (within && !within.some(dir => isWithin(path, dir))) continue
    const a = sides.before(path)
    const b = sides.after(path)
    if (!a && !b) continue
    if (a && b && a.kind === b.kind && sameBytes(a.data, b.data)) continue
    if (!a) added.push(path)
    else if (!b) deleted.set(path, a)
    else changed.push(path)
  }
  const entries: DiffEntry[] = []
  for (const path of changed) entries.push(await entryOf(run, path, 'changed', sides.before(path), sides.after(path)))
  for (const path of added) {
    const b = sides.after(path)!
    const source = b.kind === 'file' ? [...deleted].find(([, a]) => a.kind === 'file' && sameBytes(a.data, b.data)) : undefined
    if (!source) {
      entries.push(await entryOf(run, path, 'added', undefined, b))
      continue
    }
    deleted.delete(source[0])
    entries.push({
      path,
      status: 'moved',
      from: source[0],
      kind: 'file',
      sizeBefore: b.data.length,
      sizeAfter: b.data.length,
      binary: !startsAsText(b.data),
    })
  }
  for (const [path, a] of deleted) entries.push(await entryOf(run, path, 'deleted', a, undefined))
  entries.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
  return { from: sides.from, to: sides.to, entries }
}

async function entryOf(
  run: Run,
  path: string,
  status: DiffEntry['status'],
  a: StoredEntry | undefined,
  b: StoredEntry | undefined,
): Promise<DiffEntry> {
  const kind = (b ?? a)!.kind
  const entry: DiffEntry = { path, status, kind, binary: false }
  if (a) entry.sizeBefore = a.data.length
  if (b) entry.sizeAfter = b.data.length
  if (kind === 'dir') return entry
  if ((a?.data.length ?? 0) > run.limits.maxBytes || (b?.data.length ?? 0) > run.limits.maxBytes) {
    const binary = (a !== undefined && !startsAsText(a.data)) || (b !== undefined && !startsAsText(b.data))
    return withHashes(binary ? { ...entry, binary } : { ...entry, omitted: omitted('size') }, a, b)
  }
  const oldText = a ? textOf(a.data) : ''
  const newText = b ? textOf(b.data) : ''
  if (oldText === undefined || newText === undefined) return withHashes({ ...entry, binary: true }, a, b)
  const lines = await lineDiff(run, a ? path : '/dev/null', b ? path : '/dev/null', oldText, newText)
  if ('reason' in lines) return withHashes({ ...entry, omitted: lines }, a, b)
  return { ...entry, ...lines }
}

/**
 * One file's line diff, in the process-wide lane, within the edit-length bound, the file's time
 * bound and what is left of the diff's budget.
 */
async function lineDiff(
  run: Run,
  oldName: string,
  newName: string,
  oldText: string,
  newText: string,
): Promise<{ added: number; removed: number; patch?: string } | DiffOmitted> {
  const { lib, limits, options } = run
  return inDiffLane(() => {
    const left = run.deadline - Date.now()
    if (left <= 0) return omitted('budget')
    const timeout = Math.min(limits.fileTimeoutMs, left)
    const started = Date.now()
    const context = options.context ?? 3
    const patch = lib.structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {
      context,
      maxEditLength: limits.maxEditLength,
      timeout,
    })
    if (!patch) return omitted(Date.now() - started >= timeout ? (timeout < limits.fileTimeoutMs ? 'budget' : 'time') : 'edits')
    let added = 0
    let removed = 0
    for (const h of patch.hunks)
      for (const line of h.lines) {
        if (line.startsWith('+')) added++
        else if (line.startsWith('-')) removed++
      }
    return options.patches === false ? { added, removed } : { added, removed, patch: lib.formatPatch(patch) }
  })
}

const omitted = (reason: DiffOmitted['reason']): DiffOmitted => ({ reason, message: OMITTED_MESSAGES[reason] })

async function withHashes(entry: DiffEntry, a: StoredEntry | undefined, b: StoredEntry | undefined): Promise<DiffEntry> {
  if (a) entry.hashBefore = await sha256Hex(a.data)
  if (b) entry.hashAfter = await sha256Hex(b.data)
  return entry
}

/**
 * Whether a file's first 64 KiB are UTF-8: what says "binary" for a file too large to decode whole
 * (a split character at the cut is allowed: `stream` mode keeps it for a next chunk never given).
 */
function startsAsText(data: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(0, 64 * 1024), { stream: true })
    return true
  } catch {
    return false
  }
}

/** The text of a file, or undefined when it is not UTF-8. */
function textOf(data: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(data)
  } catch {
    return undefined
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
