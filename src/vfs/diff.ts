import type { StoredEntry } from '../contract/store.js'
import { isWithin } from '../contract/paths.js'
import type { DiffEntry, DiffOptions, VfsDiff } from './history-types.js'

/** Files larger than this get sizes only, no line diff (a line diff's cost grows with the product of the sides). */
export const MAX_PATCH_BYTES = 1 << 20

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

type DiffLib = Pick<typeof import('diff'), 'createTwoFilesPatch' | 'structuredPatch'>
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

/**
 * The diff of two states over the paths that may differ: added, changed, deleted, and moved (a
 * deleted file whose exact content was added elsewhere), with line patches for text.
 */
export async function diffStates(sides: DiffSides, options: DiffOptions = {}): Promise<VfsDiff> {
  const lib = await loadDiff()
  const within = options.paths
  const added: DiffEntry[] = []
  const deleted = new Map<string, StoredEntry>()
  const entries: DiffEntry[] = []
  for (const path of new Set(sides.paths)) {
    if (within && !within.some(dir => isWithin(path, dir))) continue
    const a = sides.before(path)
    const b = sides.after(path)
    if (!a && !b) continue
    if (a && b && a.kind === b.kind && sameBytes(a.data, b.data)) continue
    if (!a) added.push(entryOf(lib, path, 'added', undefined, b, options))
    else if (!b) deleted.set(path, a)
    else entries.push(entryOf(lib, path, 'changed', a, b, options))
  }
  for (const e of added) {
    const b = sides.after(e.path)!
    const source = b.kind === 'file' ? [...deleted].find(([, a]) => a.kind === 'file' && sameBytes(a.data, b.data)) : undefined
    if (!source) {
      entries.push(e)
      continue
    }
    deleted.delete(source[0])
    entries.push({
      path: e.path,
      status: 'moved',
      from: source[0],
      kind: 'file',
      sizeBefore: b.data.length,
      sizeAfter: b.data.length,
      binary: e.binary,
    })
  }
  for (const [path, a] of deleted) entries.push(entryOf(lib, path, 'deleted', a, undefined, options))
  entries.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
  return { from: sides.from, to: sides.to, entries }
}

function entryOf(
  { structuredPatch, createTwoFilesPatch }: DiffLib,
  path: string,
  status: DiffEntry['status'],
  a: StoredEntry | undefined,
  b: StoredEntry | undefined,
  options: DiffOptions,
): DiffEntry {
  const kind = (b ?? a)!.kind
  const entry: DiffEntry = { path, status, kind, binary: false }
  if (a) entry.sizeBefore = a.data.length
  if (b) entry.sizeAfter = b.data.length
  if (kind === 'dir') return entry
  const oldText = a ? textOf(a.data) : ''
  const newText = b ? textOf(b.data) : ''
  if (oldText === undefined || newText === undefined) return { ...entry, binary: true }
  const context = options.context ?? 3
  const hunks = structuredPatch(path, path, oldText, newText, undefined, undefined, { context }).hunks
  let addedLines = 0
  let removedLines = 0
  for (const h of hunks)
    for (const line of h.lines) {
      if (line.startsWith('+')) addedLines++
      else if (line.startsWith('-')) removedLines++
    }
  entry.added = addedLines
  entry.removed = removedLines
  if (options.patches !== false)
    entry.patch = createTwoFilesPatch(a ? path : '/dev/null', b ? path : '/dev/null', oldText, newText, undefined, undefined, { context })
  return entry
}

/** The text of a file, or undefined when it is not UTF-8 or too large to diff. */
function textOf(data: Uint8Array): string | undefined {
  if (data.length > MAX_PATCH_BYTES) return undefined
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
