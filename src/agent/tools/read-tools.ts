import { z } from 'zod'
import { normalizePath } from 'agent-vfs'
import { escapeGlob } from 'agent-vfs/internal'
import { defineTool, ToolError } from './tool.js'
import type { FileToolContext } from './tool-context.js'

// ignoreBOM: a leading U+FEFF stays in the text, as the workspace's own readFile(path, 'utf8') keeps it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })

/** One entry of an `ls` result. */
export interface LsEntry {
  /** Name relative to the listed directory (`sub/x.md` when recursive). */
  name: string
  type: 'file' | 'directory'
  /** Bytes; 0 for directories. */
  size: number
}

/** `ls`: lists a directory, optionally its whole subtree. */
export function lsTool(ctx: FileToolContext) {
  return defineTool({
    description:
      'List a directory of the workspace (default /). Returns names, types and sizes. Use recursive: true for the whole subtree.',
    inputSchema: z.object({
      path: z.string().default('/').describe('Directory to list, e.g. /work'),
      recursive: z.boolean().default(false).describe('List every entry below the directory'),
    }),
    access: input => ({ access: 'read', paths: [input.path] }),
    async execute({ path, recursive }) {
      const stat = await ctx.vfs.stat(path)
      if (stat.type !== 'directory')
        throw new ToolError('not-directory', `${path} is a file, not a directory.`, `read it with read_file({ path: "${path}" }).`)
      const base = normalizePath(path)
      const limit = ctx.limits.listEntries
      if (recursive) {
        // A walk stops at the entry limit or the time budget, however big the tree.
        const prefix = base === '/' ? 1 : base.length + 1
        const walked = await ctx.vfs.walk(`${escapeGlob(base)}/**`, {
          includeDirs: true,
          limit: limit + 1,
          deadline: Date.now() + ctx.limits.searchMillis,
          filter: p => p !== base,
        })
        const entries: LsEntry[] = walked.entries.slice(0, limit).map(e => ({ name: e.path.slice(prefix), type: e.type, size: e.size }))
        const truncated = walked.truncated || walked.entries.length > limit
        const timedOut = walked.truncated && walked.entries.length <= limit
        return {
          path: base,
          entries,
          truncated,
          ...(truncated
            ? {
                note: `${timedOut ? `Stopped after ${ctx.limits.searchMillis} ms with` : 'Showing'} ${entries.length} entries; there are more. List a subdirectory or use glob with a narrower pattern.`,
              }
            : {}),
        }
      }
      const names = await ctx.vfs.readdir(path)
      // Types and sizes from one walk; a name it does not list is a run root not written to yet: a directory.
      const prefix = base === '/' ? 1 : base.length + 1
      const walked = await ctx.vfs.walk(`${escapeGlob(base)}/*`, { includeDirs: true })
      const children = new Map(walked.entries.map(e => [e.path.slice(prefix), e]))
      const entries: LsEntry[] = names.slice(0, limit).map(name => {
        const s = children.get(name) ?? { type: 'directory' as const, size: 0 }
        return { name, type: s.type, size: s.size }
      })
      const truncated = names.length > entries.length
      return {
        path: base,
        entries,
        truncated,
        ...(truncated
          ? {
              note: `Showing ${entries.length} of ${names.length} entries. List a subdirectory or use glob with a narrower pattern.`,
            }
          : {}),
      }
    },
  })
}

/** `read_file`: a window of a text file with line numbers, capped in lines and bytes. */
export function readFileTool(ctx: FileToolContext) {
  return defineTool({
    description:
      'Read a text file. Returns numbered lines ("<n>\\t<text>"; the numbers are not part of the file). ' +
      'Use offset (1-based first line) and limit (number of lines) for long files; the result says how to continue.',
    inputSchema: z.object({
      path: z.string().describe('File to read, e.g. /context/episodes/01.md'),
      offset: z.number().int().min(1).default(1).describe('First line to return, 1-based'),
      limit: z.number().int().min(1).optional().describe('How many lines to return'),
    }),
    access: input => ({ access: 'read', paths: [input.path] }),
    async execute({ path, offset, limit }) {
      const stat = await ctx.vfs.stat(path)
      if (stat.type === 'directory') throw new ToolError('is-directory', `${path} is a directory.`, `list it with ls({ path: "${path}" }).`)
      const bytes = await ctx.vfs.readFile(path)
      ctx.reads.record(path, stat.version)
      if (looksBinary(bytes)) return `${path}: binary file (${stat.mimeType}, ${bytes.length} bytes); it cannot be shown as text.`
      return renderLines(path, utf8.decode(bytes), offset, limit ?? ctx.limits.readLines, ctx.limits.readBytes)
    },
  })
}

function renderLines(path: string, text: string, offset: number, limit: number, maxBytes: number): string {
  const lines = text.split('\n')
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
  const total = text === '' ? 0 : lines.length
  if (total === 0) return `${path}: empty file.`
  if (offset > total) {
    throw new ToolError(
      'invalid-input',
      `offset ${offset} is past the end of ${path} (${total} lines).`,
      `call read_file with an offset between 1 and ${total}.`,
    )
  }
  const out: string[] = []
  let bytes = 0
  let last = offset - 1
  let cutLine: number | undefined
  for (let n = offset; n <= Math.min(total, offset + limit - 1); n++) {
    let line = lines[n - 1].endsWith('\r') ? lines[n - 1].slice(0, -1) : lines[n - 1]
    if (bytes + line.length > maxBytes) {
      if (out.length > 0) break
      line = line.slice(0, maxBytes)
      cutLine = n
    }
    out.push(`${String(n).padStart(6)}\t${line}`)
    bytes += line.length + 1
    last = n
  }
  const header = `${path}: lines ${offset}-${last} of ${total}`
  const notes: string[] = []
  if (cutLine !== undefined)
    notes.push(`[line ${cutLine} is longer than ${maxBytes} characters and was cut; use grep or run_js to inspect it]`)
  if (last < total) notes.push(`[${total - last} more lines: call read_file({ path: "${path}", offset: ${last + 1} }) to continue]`)
  return [header, ...out, ...notes].join('\n')
}

/** True when the first 8 KiB hold a NUL byte, as `grep` decides. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192)
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true
  return false
}
