import { z } from 'zod'
import type { HistoryEntry, VfsDiff, DiffOptions } from 'agent-vfs'
import { defineTool, type ToolSet } from './tool.js'

/** What the change tools read: a workspace's history (a `VersionedVfs`, or a branch of one). */
export interface ChangeSource {
  readonly version: number
  history(query?: { after?: number; path?: string; limit?: number }): Promise<HistoryEntry[]>
  diff(from: number, to?: number, options?: DiffOptions): Promise<VfsDiff>
}

/** Options of {@link createChangeTools}. */
export interface ChangeToolsOptions {
  /** The version "since" means by default: e.g. the workspace's version when the execution started. */
  since: number
  /** Changes `changes_since` lists at most. Default 200. */
  maxChanges?: number
  /** Characters of patch text `diff_files` returns at most (the rest is cut, and says so). Default 20,000. */
  maxPatchChars?: number
}

const point = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)
const pathInput = z.string().min(1).max(4096).describe('A file, or a folder ending in / for everything below it, e.g. /outputs/')

/**
 * `changes_since` and `diff_files`: the agent sees what changed in the workspace since a version
 * (by default since its execution started: also what a person or another client changed meanwhile),
 * and line diffs of files between two versions. Read-only; versions are what `stat` reports.
 */
export function createChangeTools(source: ChangeSource, options: ChangeToolsOptions): ToolSet {
  const maxChanges = options.maxChanges ?? 200
  const maxPatchChars = options.maxPatchChars ?? 20_000
  return {
    changes_since: defineTool({
      description:
        'List what changed in the workspace since a version (default: since this execution started), oldest first: path, put or delete, version, and who (this execution, another one, or a person).',
      inputSchema: z.object({
        version: point.optional().describe('Workspace version; default: the start of this execution'),
        path: pathInput.optional(),
      }),
      access: input => ({ access: 'read', paths: input.path ? [input.path] : ['/'] }),
      async execute({ version, path }) {
        const entries = await source.history({ after: version ?? options.since, ...(path ? { path } : {}), limit: maxChanges })
        const changes = entries.flatMap(e =>
          e.changes.map(c => ({ path: c.path, op: c.op, version: e.version, size: c.size, by: c.actor ?? 'unknown' })),
        )
        return { now: source.version, changes: changes.slice(0, maxChanges), truncated: changes.length > maxChanges }
      },
    }),
    diff_files: defineTool({
      description:
        'Show how files differ between two workspace versions (default: from the start of this execution to now): added, changed, moved, deleted, with unified line diffs for text.',
      inputSchema: z.object({ from: point.optional(), to: point.optional(), path: pathInput.optional() }),
      access: input => ({ access: 'read', paths: input.path ? [input.path] : ['/'] }),
      async execute({ from, to, path }) {
        const diff = await source.diff(from ?? options.since, to, { patches: true, ...(path ? { paths: [path] } : {}) })
        let budget = maxPatchChars
        const entries = diff.entries.map(e => {
          if (e.patch === undefined) return e
          const patch =
            e.patch.length <= budget ? e.patch : `${e.patch.slice(0, Math.max(0, budget))}\n… (cut: ask for one path to see more)`
          budget = Math.max(0, budget - e.patch.length)
          return { ...e, patch }
        })
        return { from: diff.from, to: diff.to, entries }
      },
    }),
  }
}
