import type { RE2JS } from 're2js'
import { VfsError } from '../contract/errors.js'
import { MAX_REGEX_PROGRAM } from './limits.js'
import { regexEngine } from './regex-engine.js'

/** What the accepted regular-expression syntax is, for errors and tool descriptions. */
export const REGEX_SYNTAX =
  'RE2 syntax (as in Go and ripgrep): classes, \\d \\w \\s \\b, \\p{L}, [[:alpha:]], groups, (?i), repetitions up to {1000}; ' +
  'no backreferences (\\1) and no lookaround ((?=…), (?!…), (?<=…), (?<!…))'

/**
 * Compiles a regular expression for a linear-time engine (re2js): matching time grows with the
 * input times the pattern's size, never exponentially, whatever the pattern. Patterns it cannot
 * run that way are EINVAL.
 */
export function compileRegex(pattern: string, ignoreCase: boolean): RE2JS {
  const { RE2JS, RE2JSException } = regexEngine()
  let re: RE2JS
  try {
    re = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    throw new VfsError('EINVAL', undefined, `invalid regular expression ${JSON.stringify(pattern)}: ${error.message}. Use ${REGEX_SYNTAX}`)
  }
  if (re.programSize() > MAX_REGEX_PROGRAM) {
    throw new VfsError(
      'EINVAL',
      undefined,
      `the regular expression ${JSON.stringify(pattern.slice(0, 80))} is too large once compiled (${re.programSize()} > ${MAX_REGEX_PROGRAM} steps); use smaller repetition counts`,
    )
  }
  return re
}
