/**
 * Inputs that cost a three-way merge the most, at the diff bounds (DIFF_LIMITS): each is
 * `{ base, ours, theirs }`. node-diff3's LCS, given whole files, is super-linear in lines and
 * cubic-like when lines repeat (4,000 blank lines: 100 s here), so each of these would hang a host
 * if a merge handed it whole files. Shared by the library tests and the bench.
 */
export interface MergeCase {
  base: string
  ours: string
  theirs: string
}

const BOUND = 256 * 1024

/** A file at the size bound made of one repeated line, edited near its start (ours) and its end (theirs): merges. */
export function repeatedLinesAtBound(): MergeCase {
  const lines = Array.from({ length: BOUND / 2 - 8 }, () => '\n')
  const base = lines.join('')
  const ours = ['x\n', ...lines.slice(1)].join('')
  const theirs = [...lines.slice(0, -1), 'y\n'].join('')
  return { base, ours, theirs }
}

/** Unique lines up to the bound, each side replacing every fourth line at its own offset (hundreds of small hunks): merges. */
export function manySmallHunks(lines = 1000): MergeCase {
  const base = Array.from({ length: lines }, (_, i) => `line ${i} ${'.'.repeat(40)}\n`)
  const ours = base.map((l, i) => (i % 8 === 0 ? `ours ${i}\n` : l))
  const theirs = base.map((l, i) => (i % 8 === 4 ? `theirs ${i}\n` : l))
  return { base: base.join(''), ours: ours.join(''), theirs: theirs.join('') }
}

/** Each side changes every other line of a run of repeated lines (no untouched line between edits): one dense region. */
export function denseRepeatedRegion(lines = 600): MergeCase {
  const base = Array.from({ length: lines }, () => 'same\n')
  const ours = base.map((l, i) => (i % 2 === 0 ? 'ours\n' : l))
  const theirs = base.map((l, i) => (i % 2 === 1 ? 'theirs\n' : l))
  return { base: base.join(''), ours: ours.join(''), theirs: theirs.join('') }
}

/** Long lines (the whole bound in a few lines), one changed on each side: merges. */
export function longLines(): MergeCase {
  const line = (c: string) => c.repeat(BOUND / 4 - 2) + '\n'
  const base = [line('a'), line('b'), line('c'), line('d')]
  return {
    base: base.join(''),
    ours: [line('A'), ...base.slice(1)].join(''),
    theirs: [...base.slice(0, 3), line('D')].join(''),
  }
}
