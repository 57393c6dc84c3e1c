import { z } from 'zod'
import type { GrepMatch } from 'agent-vfs'
import { unsafeRegexReason } from './regex-guard.js'
import { defineTool, ToolError } from './tool.js'
import type { FileToolContext } from './tool-context.js'

/** `glob`: workspace paths matching a pattern. */
export function globTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Find files by glob pattern (`**` any depth, `*`, `?`, `{a,b}`), e.g. /context/**/*.md. Returns sorted paths.',
    inputSchema: z.object({
      pattern: z.string().min(1).describe('Glob pattern; relative patterns start at /'),
      includeDirs: z.boolean().default(false).describe('Also return matching directories'),
    }),
    access: (input) => ({ access: 'read', paths: [input.pattern] }),
    async execute({ pattern, includeDirs }) {
      const all = await ctx.vfs.glob(pattern, { includeDirs })
      const paths = all.slice(0, ctx.limits.listEntries)
      const truncated = all.length > paths.length
      return {
        pattern,
        paths,
        total: all.length,
        truncated,
        ...(all.length === 0 ? { note: 'No match. Check the directory with ls; patterns are absolute (start with /context, /work, …).' } : {}),
        ...(truncated ? { note: `Showing ${paths.length} of ${all.length}. Use a narrower pattern.` } : {}),
      }
    },
  })
}

const BATCH = 64

/** `grep`: searches file contents for literal text (default) or a regular expression. */
export function grepTool(ctx: FileToolContext) {
  return defineTool({
    description:
      'Search file contents. Literal text by default; regex: true for a JavaScript regular expression ' +
      '(nested repetitions such as (a+)+ are refused). path narrows the search to a directory, file or glob. One match per line.',
    inputSchema: z.object({
      pattern: z.string().min(1),
      regex: z.boolean().default(false),
      ignoreCase: z.boolean().default(false),
      path: z.string().default('/').describe('Directory, file or glob pattern to search'),
      context: z.number().int().min(0).max(5).default(0).describe('Lines of context around each match'),
      maxMatches: z.number().int().min(1).optional(),
    }),
    access: (input) => ({ access: 'read', paths: [input.path] }),
    async execute({ pattern, regex, ignoreCase, path, context, maxMatches }) {
      if (pattern.length > ctx.limits.patternLength) {
        throw new ToolError('unsafe-pattern', `The pattern is longer than ${ctx.limits.patternLength} characters.`, 'search for a shorter, distinctive piece of text.')
      }
      if (regex) {
        const reason = unsafeRegexReason(pattern)
        if (reason) throw new ToolError('unsafe-pattern', `Refused regex: ${reason}; it could run for a very long time.`, 'simplify it (e.g. (a+)+ → a+), or search literal text.')
        try {
          new RegExp(pattern)
        } catch (error) {
          throw new ToolError('invalid-input', `Invalid regular expression: ${(error as Error).message}.`, 'fix the pattern, or pass regex: false to search literal text.')
        }
      }
      const cap = Math.min(maxMatches ?? ctx.limits.grepMatches, ctx.limits.grepMatches)
      const files = await filesUnder(ctx, path)
      const started = Date.now()
      const matches: GrepMatch[] = []
      let filesSearched = 0
      let truncated = false
      let timedOut = false
      for (let i = 0; i < files.length && !truncated; i += BATCH) {
        if (Date.now() - started > ctx.limits.grepMillis) {
          timedOut = true
          break
        }
        const r = await ctx.vfs.grep(pattern, { regex, ignoreCase, context, paths: files.slice(i, i + BATCH), maxMatches: cap - matches.length })
        matches.push(...r.matches)
        filesSearched += r.filesSearched
        truncated = r.truncated || matches.length >= cap
      }
      const notes: string[] = []
      if (truncated) notes.push(`Stopped at ${cap} matches: narrow path or make the pattern more specific.`)
      if (timedOut) notes.push(`Stopped after ${ctx.limits.grepMillis} ms having searched ${filesSearched} of ${files.length} files: narrow path.`)
      if (matches.length === 0 && !timedOut) notes.push(regex ? 'No match. Check the pattern, or try ignoreCase: true.' : 'No match. The search is literal: pass regex: true for a pattern, or ignoreCase: true.')
      return { matches, truncated: truncated || timedOut, filesSearched, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) }
    },
  })
}

async function filesUnder(ctx: FileToolContext, path: string): Promise<string[]> {
  if (/[*?[\]{}]/.test(path)) return ctx.vfs.glob(path)
  const stat = await ctx.vfs.stat(path)
  if (stat.type === 'file') return [path]
  return ctx.vfs.glob(`${path === '/' ? '' : path}/**`)
}
