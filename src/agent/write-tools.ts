import { isVfsError } from 'agent-vfs'
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
  if (version !== seen) throw new ToolError('stale', `${path} changed since you read it (version ${seen}, now ${version}).`, readFirst(path))
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
    access: (input) => ({ access: 'write', paths: [input.path] }),
    async execute({ path, content, overwrite }) {
      const exists = await ctx.vfs.exists(path)
      if (exists) {
        const stat = await ctx.vfs.stat(path)
        if (stat.type === 'directory') throw new ToolError('is-directory', `${path} is a directory.`, 'write to a file path below it, e.g. ' + `${path}/notes.md.`)
        if (!overwrite) throw new ToolError('exists', `${path} already exists.`, 'pass overwrite: true to replace it, or choose another path.')
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
    access: (input) => ({ access: 'write', paths: [input.path] }),
    async execute({ path, old_string, new_string, replace_all }) {
      if (old_string === new_string) throw new ToolError('invalid-input', 'old_string and new_string are the same.', 'give the text that should replace old_string.')
      const seen = ctx.reads.versionOf(path)
      if (seen === undefined) throw new ToolError('not-read', `You have not read ${path} in this execution.`, readFirst(path))
      await checkFresh(ctx, path, seen)
      const text = await ctx.vfs.readFile(path, 'utf8')
      const at = occurrences(text, old_string)
      if (at.length === 0) {
        throw new ToolError('no-match', `old_string was not found in ${path}.`, 'copy the exact text from read_file (whitespace and line breaks matter, line numbers are not part of the file) and retry.')
      }
      if (at.length > 1 && !replace_all) {
        const lines = at.map((i) => lineOf(text, i))
        throw new ToolError('several-matches', `old_string occurs ${at.length} times in ${path} (lines ${lines.join(', ')}).`, 'include more surrounding text so it matches once, or pass replace_all: true.')
      }
      const updated = replace_all ? text.split(old_string).join(new_string) : text.slice(0, at[0]) + new_string + text.slice(at[0] + old_string.length)
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

function occurrences(text: string, needle: string): number[] {
  const out: number[] = []
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) out.push(i)
  return out
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
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
    access: (input) => ({ access: 'write', paths: [input.from, input.to] }),
    async execute({ from, to, overwrite }) {
      if (!(await ctx.vfs.exists(from))) throw new ToolError('not-found', `${from} does not exist.`, 'check the path with ls or glob.')
      if (await ctx.vfs.exists(to)) {
        const target = await ctx.vfs.stat(to)
        if (!overwrite || target.type === 'directory') {
          throw new ToolError('exists', `${to} already exists.`, target.type === 'directory' ? 'move into a path below it, e.g. ' + `${to}/<name>.` : 'pass overwrite: true to replace it, or choose another target.')
        }
        await ctx.vfs.deleteFile(to)
      }
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
    access: (input) => ({ access: 'write', paths: [input.path] }),
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
    access: (input) => ({ access: 'write', paths: [input.path] }),
    async execute({ path }) {
      await ctx.vfs.mkdir(path)
      return `Directory ${path} exists.`
    },
  })
}
