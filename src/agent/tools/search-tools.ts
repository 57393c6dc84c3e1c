import { z } from 'zod'
import { isVfsError, normalizePath, type GrepResult } from 'agent-vfs'
import { REGEX_SYNTAX } from 'agent-vfs/internal'
import { defineTool, ToolError } from './tool.js'
import type { FileToolContext } from './tool-context.js'

/** `glob`: workspace paths matching a pattern. */
export function globTool(ctx: FileToolContext) {
  return defineTool({
    description: 'Find files by glob pattern (`**` any depth, `*`, `?`, `{a,b}`, `[ab]`), e.g. /context/**/*.md. Returns sorted paths.',
    inputSchema: z.object({
      pattern: z.string().min(1).describe('Glob pattern; relative patterns start at /'),
      includeDirs: z.boolean().default(false).describe('Also return matching directories'),
    }),
    access: input => ({ access: 'read', paths: [input.pattern] }),
    async execute({ pattern, includeDirs }) {
      const { entries, truncated } = await ctx.vfs.walk(pattern, {
        includeDirs,
        limit: ctx.limits.listEntries,
        deadline: Date.now() + ctx.limits.searchMillis,
      })
      const paths = entries.map(e => e.path)
      const cut =
        entries.length >= ctx.limits.listEntries
          ? `Showing the first ${paths.length} found.`
          : `Stopped after ${ctx.limits.searchMillis} ms with ${paths.length} found.`
      return {
        pattern,
        paths,
        total: paths.length,
        truncated,
        ...(paths.length === 0 && !truncated
          ? { note: 'No match. Check the directory with ls; patterns are absolute (start with /context, /work, …).' }
          : {}),
        ...(truncated ? { note: `${cut} There are more: use a narrower pattern.` } : {}),
      }
    },
  })
}

/** `grep`: searches file contents for literal text (default) or a regular expression. */
export function grepTool(ctx: FileToolContext) {
  return defineTool({
    description:
      `Search file contents. Literal text by default; regex: true for a regular expression in ${REGEX_SYNTAX}. ` +
      'The pattern is matched against each line; one match per line. path narrows the search to a directory, file or glob.',
    inputSchema: z.object({
      pattern: z.string().min(1),
      regex: z.boolean().default(false),
      ignoreCase: z.boolean().default(false),
      path: z.string().default('/').describe('Directory, file or glob pattern to search'),
      context: z.number().int().min(0).max(5).default(0).describe('Lines of context around each match'),
      maxMatches: z.number().int().min(1).optional(),
    }),
    access: input => ({ access: 'read', paths: [input.path] }),
    async execute({ pattern, regex, ignoreCase, path, context, maxMatches }) {
      if (pattern.length > ctx.limits.patternLength) {
        throw new ToolError(
          'unsafe-pattern',
          `The pattern is longer than ${ctx.limits.patternLength} characters.`,
          'search for a shorter, distinctive piece of text.',
        )
      }
      const cap = Math.min(maxMatches ?? ctx.limits.grepMatches, ctx.limits.grepMatches)
      const whole = normalizePath(path) === '/'
      let r: GrepResult
      try {
        r = await ctx.vfs.grep(pattern, {
          regex,
          ignoreCase,
          context,
          maxMatches: cap,
          deadline: Date.now() + ctx.limits.searchMillis,
          ...(whole ? {} : { paths: [path] }),
        })
      } catch (error) {
        if (isVfsError(error, 'EINVAL') && /regular expression/.test(error.detail)) {
          throw new ToolError(
            'invalid-input',
            `Invalid regular expression: ${error.detail}.`,
            'fix the pattern, or pass regex: false to search literal text.',
          )
        }
        throw error
      }
      const { matches, truncated, filesSearched } = r
      const notes: string[] = []
      if (truncated && matches.length >= cap) notes.push(`Stopped at ${cap} matches: narrow path or make the pattern more specific.`)
      else if (truncated) notes.push(`Stopped after ${ctx.limits.searchMillis} ms having searched ${filesSearched} files: narrow path.`)
      if (matches.length === 0 && !truncated)
        notes.push(
          regex
            ? 'No match. Check the pattern, or try ignoreCase: true.'
            : 'No match. The search is literal: pass regex: true for a pattern, or ignoreCase: true.',
        )
      return { matches, truncated, filesSearched, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) }
    },
  })
}
