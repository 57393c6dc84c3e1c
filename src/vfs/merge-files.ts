import { diffLimits, inDiffLane, OMITTED_MESSAGES } from './diff-bounds.js'
import type { DiffLimits, MergeConflict } from './history-types.js'
import { mergeText, type MergeLibs } from './merge-text.js'

/** A file both sides changed: what it held at the branch's start, in the workspace now, in the branch. */
export interface BothChanged {
  path: string
  base: Uint8Array
  ours: Uint8Array
  theirs: Uint8Array
}

export type FileMerge = { path: string; ok: true; data: Uint8Array } | { path: string; ok: false; conflict: MergeConflict }

let libs: Promise<MergeLibs> | undefined

/** `diff` and `node-diff3`, loaded by the first merge; not kept if loading failed. */
function loadLibs(): Promise<MergeLibs> {
  if (!libs) {
    libs = Promise.all([import('diff'), import('node-diff3')]).then(([d, d3]) => ({ diffArrays: d.diffArrays, diff3Merge: d3.diff3Merge }))
    libs.catch(() => (libs = undefined))
  }
  return libs
}

// ignoreBOM keeps a byte-order mark in the text, so a merged file re-encodes byte for byte.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const encoder = new TextEncoder()

/**
 * Merges files changed on both sides three ways, within the bounds of a diff (diff-bounds.ts):
 * each side at most `maxBytes`, each line diff within `maxEditLength` and `fileTimeoutMs`, all of
 * them within `budgetMs` (files after it conflict with reason `budget`). The work runs in the
 * process-wide diff lane, several files per turn (a turn ends once it has run `fileTimeoutMs`), so
 * a commit merging thousands of small files pays a few turns, not one per file, and a request that
 * arrives meanwhile waits for about one turn.
 */
export async function mergeFiles(files: readonly BothChanged[], given?: DiffLimits): Promise<FileMerge[]> {
  if (files.length === 0) return []
  const limits = diffLimits(given)
  const lib = await loadLibs()
  const deadline = Date.now() + limits.budgetMs
  const out: FileMerge[] = []
  while (out.length < files.length) {
    await inDiffLane(() => {
      const turn = Date.now()
      do {
        const file = files[out.length]
        const left = deadline - Date.now()
        if (left <= 0) out.push({ path: file.path, ok: false, conflict: { reason: 'budget', message: BUDGET } })
        else out.push(mergeOne(lib, file, limits.maxBytes, limits.maxEditLength, Math.min(limits.fileTimeoutMs, left)))
      } while (out.length < files.length && Date.now() - turn < limits.fileTimeoutMs)
    })
  }
  return out
}

const BUDGET = 'not merged line by line: this commit used up its time budget on earlier files'

function mergeOne(lib: MergeLibs, file: BothChanged, maxBytes: number, maxEditLength: number, timeoutMs: number): FileMerge {
  const { path } = file
  if ([file.base, file.ours, file.theirs].some(d => d.length > maxBytes))
    return { path, ok: false, conflict: { reason: 'size', message: OMITTED_MESSAGES.size.replace('show', 'merge') } }
  const texts = [file.base, file.ours, file.theirs].map(textOf)
  if (texts.some(t => t === undefined))
    return { path, ok: false, conflict: { reason: 'binary', message: 'a binary file (not UTF-8) cannot be merged line by line' } }
  const [base, ours, theirs] = texts as string[]
  const merged = mergeText(lib, base, ours, theirs, { maxEditLength, timeoutMs })
  return merged.ok ? { path, ok: true, data: encoder.encode(merged.text) } : { path, ok: false, conflict: merged.conflict }
}

function textOf(data: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(data)
  } catch {
    return undefined
  }
}
