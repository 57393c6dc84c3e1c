import { baseName, isVfsError, normalizePath } from 'agent-vfs'
import { z } from 'zod'
import { defineTool, ToolError } from './tool.js'
import type { FileToolContext } from './tool-context.js'

const readFirst = (path: string) => `call read_file({ path: "${path}" }) and retry with the text as it is now.`

/** Records the version of a file the tool just wrote, so the model may edit it without re-reading. */
async function remember(ctx: FileToolContext, path: string): Promise<number> {
  const { version } = await ctx.vfs.stat(path)
  ctx.reads.record(path, version)
  return version
}

/** Throws `stale` if the file changed since the model last saw it. */
async function checkFresh(ctx: FileToolContext, path: string, seen: number | undefined): Promise<void> {
  if (seen === undefined) return
  const { version } = await ctx.vfs.stat(path)
  if (version !== seen)
    throw new ToolError('stale', `${path} changed since you read it (version ${seen}, now ${version}).`, readFirst(path))
}

/** `write_file`: creates or replaces a whole text file; parents are created. */
export function writeFileTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Create or replace a text file (parent directories are created). To change part of a file, use edit_file.',
    inputSchema: z.object({
      path: z.string().describe('File to write, e.g. /work/notes.md'),
      content: z.string().describe('The complete new content'),
      overwrite: z.boolean().default(true).describe('Set false to fail instead of replacing an existing file'),
    }),
    access: input => ({ access: 'write', paths: [input.path] }),
    async execute({ path, content, overwrite }) {
      const exists = await ctx.vfs.exists(path)
      if (exists) {
        const stat = await ctx.vfs.stat(path)
        if (stat.type === 'directory')
          throw new ToolError('is-directory', `${path} is a directory.`, 'write to a file path below it, e.g. ' + `${path}/notes.md.`)
        if (!overwrite)
          throw new ToolError('exists', `${path} already exists.`, 'pass overwrite: true to replace it, or choose another path.')
        await checkFresh(ctx, path, ctx.reads.versionOf(path))
      }
      const seen = ctx.reads.versionOf(path)
      try {
        await ctx.vfs.writeFile(path, content, exists && seen !== undefined ? { expectedVersion: seen } : {})
      } catch (error) {
        if (isVfsError(error, 'ECONFLICT')) throw new ToolError('stale', `${path} changed while writing.`, readFirst(path))
        throw error
      }
      const version = await remember(ctx, path)
      return `${exists ? 'Replaced' : 'Created'} ${path} (${new TextEncoder().encode(content).length} bytes, version ${version}).`
    },
  })
}

/** `edit_file`: replaces an exact piece of text in a file the model has read. */
export function editFileTool(ctx: FileToolContext) {
  return defineTool({
    description:
      'Replace exact text in a file you have read (read_file first). old_string must match the file exactly, ' +
      'whitespace included, and only once unless replace_all is true.',
    inputSchema: z.object({
      path: z.string(),
      old_string: z.string().min(1).describe('Exact text to replace (without read_file line numbers)'),
      new_string: z.string().describe('Replacement text'),
      replace_all: z.boolean().default(false).describe('Replace every occurrence'),
    }),
    access: input => ({ access: 'write', paths: [input.path] }),
    async execute({ path, old_string, new_string, replace_all }) {
      if (old_string === new_string)
        throw new ToolError('invalid-input', 'old_string and new_string are the same.', 'give the text that should replace old_string.')
      const seen = ctx.reads.versionOf(path)
      if (seen === undefined) throw new ToolError('not-read', `You have not read ${path} in this execution.`, readFirst(path))
      await checkFresh(ctx, path, seen)
      const text = await ctx.vfs.readFile(path, 'utf8')
      // Counting stops past the cap: a one-character old_string in a large file has a match per character.
      const cap = replace_all ? ctx.limits.editReplacements : 1
      const at = occurrences(text, old_string, cap + 1)
      if (at.length === 0) {
        throw new ToolError(
          'no-match',
          `old_string was not found in ${path}.`,
          'copy the exact text from read_file (whitespace and line breaks matter, line numbers are not part of the file) and retry.',
        )
      }
      if (at.length > 1 && !replace_all) {
        const lines = linesOf(text, at.slice(0, SHOWN_LINES))
        const more = countUpTo(text, old_string, at[at.length - 1] + old_string.length, ctx.limits.editReplacements - at.length)
        const total = at.length + more
        const counted = total >= ctx.limits.editReplacements ? `at least ${total}` : String(total)
        throw new ToolError(
          'several-matches',
          `old_string occurs ${counted} times in ${path} (lines ${lines.join(', ')}${total > lines.length ? ', …' : ''}).`,
          'include more surrounding text so it matches once, or pass replace_all: true.',
        )
      }
      if (at.length > cap) {
        throw new ToolError(
          'too-large',
          `old_string occurs more than ${cap} times in ${path}; replace_all replaces at most ${cap} in one call.`,
          'use a longer old_string that matches fewer places, or transform the file with run_js.',
        )
      }
      const length = text.length + at.length * (new_string.length - old_string.length)
      if (length > Math.max(ctx.limits.editChars, text.length)) {
        throw new ToolError(
          'too-large',
          `The edit would make ${path} ${length} characters long (${at.length} replacement${at.length > 1 ? 's' : ''}${replace_all ? ' with replace_all' : ''}); edits may produce at most ${ctx.limits.editChars}.`,
          'replace fewer occurrences or a shorter text, or write the new content with write_file.',
        )
      }
      const updated = replace_all
        ? text.split(old_string).join(new_string)
        : text.slice(0, at[0]) + new_string + text.slice(at[0] + old_string.length)
      try {
        await ctx.vfs.writeFile(path, updated, { expectedVersion: seen })
      } catch (error) {
        if (isVfsError(error, 'ECONFLICT')) throw new ToolError('stale', `${path} changed while editing.`, readFirst(path))
        throw error
      }
      await remember(ctx, path)
      return `Replaced ${replace_all ? at.length : 1} occurrence${replace_all && at.length > 1 ? 's' : ''} in ${path}.`
    },
  })
}

const SHOWN_LINES = 10

/** Start indexes of non-overlapping occurrences of `needle`, at most `max`. */
function occurrences(text: string, needle: string, max: number): number[] {
  const out: number[] = []
  for (let i = text.indexOf(needle); i >= 0 && out.length < max; i = text.indexOf(needle, i + needle.length)) out.push(i)
  return out
}

/** How many more occurrences start at or after `from`, counting at most `max`. */
function countUpTo(text: string, needle: string, from: number, max: number): number {
  let n = 0
  for (let i = text.indexOf(needle, from); i >= 0 && n < max; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

/** 1-based line numbers of ascending indexes, in one pass over the text. */
function linesOf(text: string, indexes: number[]): number[] {
  const out: number[] = []
  let line = 1
  let nl = text.indexOf('\n')
  for (const index of indexes) {
    while (nl >= 0 && nl < index) {
      line++
      nl = text.indexOf('\n', nl + 1)
    }
    out.push(line)
  }
  return out
}

/** `move`: renames a file or a directory atomically. */
export function moveTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Move or rename a file or a whole directory, atomically. Missing parents of the target are created.',
    inputSchema: z.object({
      from: z.string(),
      to: z.string(),
      overwrite: z.boolean().default(false).describe('Replace an existing target file'),
    }),
    access: input => ({ access: 'write', paths: [input.from, input.to] }),
    async execute({ from, to, overwrite }) {
      const source = normalizePath(from)
      const target = normalizePath(to)
      const moving = await ctx.vfs.stat(from)
      if (source === target) return `${from} and ${to} are the same path; nothing moved.`
      if (await ctx.vfs.exists(to)) {
        const existing = await ctx.vfs.stat(to)
        if (existing.type === 'directory')
          throw new ToolError('exists', `${to} is an existing directory.`, `move into a path below it, e.g. ${target}/${baseName(source)}.`)
        if (!overwrite)
          throw new ToolError('exists', `${to} already exists.`, 'pass overwrite: true to replace it, or choose another target.')
        if (moving.type === 'directory')
          throw new ToolError(
            'exists',
            `${to} is a file; a directory cannot replace it.`,
            'delete the file first, or choose another target.',
          )
      }
      // One rename: the workspace checks both ends and replaces the target file in the same commit, or changes nothing.
      await ctx.vfs.rename(from, to)
      ctx.reads.forget(from)
      ctx.reads.forget(to)
      return `Moved ${from} to ${to}.`
    },
  })
}

/** `delete`: removes a file, or a directory with `recursive`. */
export function deleteTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Delete a file, or a directory (recursive: true deletes its contents too).',
    inputSchema: z.object({ path: z.string(), recursive: z.boolean().default(false) }),
    access: input => ({ access: 'write', paths: [input.path] }),
    async execute({ path, recursive }) {
      const stat = await ctx.vfs.stat(path)
      if (stat.type === 'directory') await ctx.vfs.rmdir(path, { recursive })
      else await ctx.vfs.deleteFile(path)
      ctx.reads.forget(path)
      return `Deleted ${path}${stat.type === 'directory' ? ' (directory)' : ''}.`
    },
  })
}

/** `mkdir`: creates a directory and its parents; an existing directory is fine. */
export function mkdirTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Create a directory with its parents. Creating an existing directory does nothing.',
    inputSchema: z.object({ path: z.string() }),
    access: input => ({ access: 'write', paths: [input.path] }),
    async execute({ path }) {
      await ctx.vfs.mkdir(path)
      return `Directory ${path} exists.`
    },
  })
}
