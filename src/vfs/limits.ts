import { VfsError } from '../contract/errors.js'

/** Longest grep or glob pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1_000
/** Largest compiled regular expression accepted (RE2 program instructions; `a{100}` alone is ~100). */
export const MAX_REGEX_PROGRAM = 2_000
/** Most lines of context `grep` returns before and after each match. */
export const MAX_GREP_CONTEXT = 20
/** Highest `maxMatches` one `grep` call accepts (the default is 1,000). */
export const MAX_GREP_MATCHES = 10_000
/** Most entries in `grep`'s `paths`. */
export const MAX_GREP_PATHS = 1_000
/** Searches and walks check their deadline and signal after this many files or entries. */
export const WALK_CHECK_EVERY = 256

/** A non-negative integer option up to `max`, or its default when absent; EINVAL otherwise. */
export function integerOption(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new VfsError('EINVAL', undefined, `${name} must be an integer from ${min} to ${max}, got ${describe(value)}`)
  }
  return value
}

/** A deadline (milliseconds since the epoch, as Date.now()) or undefined; EINVAL otherwise. */
export function deadlineOption(value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || Number.isNaN(value))
    throw new VfsError(
      'EINVAL',
      undefined,
      `deadline must be a time in milliseconds since the epoch (as Date.now()), got ${describe(value)}`,
    )
  return value
}

/** Checks a pattern's type and length; `what` names it in the error. */
export function checkPattern(what: string, pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern === '')
    throw new VfsError('EINVAL', undefined, `the ${what} pattern must be a non-empty string`)
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new VfsError(
      'EINVAL',
      pattern.slice(0, 64) + '…',
      `the ${what} pattern is longer than ${MAX_PATTERN_LENGTH} characters; search for a shorter, distinctive piece`,
    )
  }
  return pattern
}

function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value
}

/** A test that says when a long search must stop: its deadline passed or its signal aborted. */
export function stopWhen(deadline: number | undefined, signal: AbortSignal | undefined): () => boolean {
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || !('aborted' in signal))) {
    throw new VfsError('EINVAL', undefined, 'signal must be an AbortSignal')
  }
  return () => signal?.aborted === true || (deadline !== undefined && Date.now() >= deadline)
}
