import { z } from 'zod'
import { isVfsError, type ChangeActor, type Vfs, type VfsBranch } from 'agent-vfs'
import { defineTool, ToolError, type ToolSet } from './tool.js'

/** What the attempt tools branch: a workspace with branches (a `VersionedVfs`, or a branch of one). */
export interface BranchSource {
  branch(options: { name: string }): Promise<VfsBranch>
  openBranch(name: string): Promise<VfsBranch>
}

/** Options of {@link createBranchTools}. */
export interface BranchToolsOptions {
  /**
   * The view the agent gets of an attempt, as of the workspace itself: the same roots and read-only
   * rules (a run view, a history tag). Default: the branch as it is.
   */
  view?: (branch: VfsBranch) => Vfs
  /** Prefix of the branches' names, so attempts never take another branch's name. Default `attempt-`. */
  prefix?: string
  /** The history tag of a landed attempt's commit (e.g. the execution's). */
  actor?: ChangeActor
  /** Characters of a file `attempt_read` returns at most. Default 100,000. */
  maxReadChars?: number
}

const name = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,40}$/, 'an attempt name is 1-40 letters, digits, _ or -')
  .describe('The attempt, e.g. "short-version"')
const path = z.string().min(1).max(4096)

/**
 * Attempts in a branch: the agent starts a named attempt (a copy-on-write branch of the workspace,
 * O(1)), writes and reads files in it, looks at its diff against the workspace, and lands it as one
 * commit (or gets the conflicts, nothing written) or discards it. Several attempts can live side by
 * side; the workspace itself is untouched until one is committed. Writes declare their paths, so
 * the policy's rules apply to them as to `write_file`; a commit may touch anything it changed.
 */
export function createBranchTools(source: BranchSource, options: BranchToolsOptions = {}): ToolSet {
  const prefix = options.prefix ?? 'attempt-'
  const maxRead = options.maxReadChars ?? 100_000
  const view = options.view ?? ((b: VfsBranch) => b)
  const open = async (attempt: string): Promise<VfsBranch> => {
    try {
      return await source.openBranch(prefix + attempt)
    } catch (error) {
      if (isVfsError(error, 'ENOENT')) throw new ToolError('not-found', `There is no attempt "${attempt}".`, 'start it with attempt_start.')
      throw error
    }
  }
  return {
    attempt_start: defineTool({
      description:
        'Start a named attempt: a private copy of the workspace as it is now (instant, whatever its size). Write into it with attempt_write; the workspace is untouched until attempt_commit.',
      inputSchema: z.object({ name }),
      access: () => ({ access: 'none', paths: [] }),
      async execute({ name: attempt }) {
        try {
          const branch = await source.branch({ name: prefix + attempt })
          return { attempt, baseVersion: branch.baseVersion }
        } catch (error) {
          if (isVfsError(error, 'EEXIST'))
            throw new ToolError('exists', `The attempt "${attempt}" exists.`, 'write into it, or discard it first, or pick another name.')
          throw error
        }
      },
    }),
    attempt_write: defineTool({
      description: 'Write a whole file (UTF-8 text) into an attempt; the workspace itself does not change.',
      inputSchema: z.object({ name, path, content: z.string().max(10_000_000) }),
      access: input => ({ access: 'write', paths: [input.path] }),
      async execute({ name: attempt, path: p, content }) {
        await view(await open(attempt)).writeFile(p, content)
        return { attempt, path: p, bytes: new TextEncoder().encode(content).length }
      },
    }),
    attempt_read: defineTool({
      description: 'Read a file (UTF-8 text) as an attempt has it: its own writes over the workspace as it was when the attempt started.',
      inputSchema: z.object({ name, path }),
      access: input => ({ access: 'read', paths: [input.path] }),
      async execute({ name: attempt, path: p }) {
        const text = await view(await open(attempt)).readFile(p, 'utf8')
        return text.length <= maxRead ? { content: text } : { content: text.slice(0, maxRead), truncated: true }
      },
    }),
    attempt_diff: defineTool({
      description:
        'Show what an attempt changed against the workspace as it was when it started: files added, changed, deleted, with line diffs.',
      inputSchema: z.object({ name }),
      access: () => ({ access: 'read', paths: ['/'] }),
      async execute({ name: attempt }) {
        const diff = await (await open(attempt)).diffBase({ patches: true })
        return { attempt, entries: diff.entries }
      },
    }),
    attempt_commit: defineTool({
      description:
        'Land an attempt in the workspace as ONE commit. A text file changed both here and in the workspace since the attempt started is merged line by line when the edits do not overlap; overlapping edits, binary files and a delete against an edit are conflicts: then nothing is written and the conflicts are returned (the attempt stays; discard it or start another).',
      inputSchema: z.object({ name }),
      // It may change anything the attempt wrote (each write was checked): rules that name no paths decide it.
      access: () => ({ access: 'write', paths: [] }),
      async execute({ name: attempt }) {
        const result = await (await open(attempt)).commit(options.actor !== undefined ? { actor: options.actor } : {})
        return result.ok
          ? { attempt, committed: true, version: result.version, files: result.changes.length }
          : { attempt, committed: false, conflicts: result.conflicts.map(c => ({ path: c.path, message: c.message })) }
      },
    }),
    attempt_discard: defineTool({
      description: 'Drop an attempt and everything written into it; the workspace does not change.',
      inputSchema: z.object({ name }),
      access: () => ({ access: 'none', paths: [] }),
      async execute({ name: attempt }) {
        await (await open(attempt)).discard()
        return { attempt, discarded: true }
      },
    }),
  }
}
