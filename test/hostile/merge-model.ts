/**
 * The history fuzz's own three-way merge oracle, independent of node-diff3: files of unique lines
 * whose edits replace lines in place (the line count never changes). Lines changed on either side
 * form runs of consecutive line numbers; diff3 merges a run one side alone changed, and a run both
 * changed only when both made it the same (adjacent edits are one run: diff3 joins touching hunks).
 */
export const MERGE_LINE = /^m\d+(\.\w+)?$/

/** A fresh file of `n` unique lines. */
export function linesFile(n: number, next: () => number): string {
  return Array.from({ length: n }, () => `m${next()}\n`).join('')
}

/** Whether `text` is such a file (what random operations write is not). */
export function isLinesFile(text: string | undefined): text is string {
  return (
    text !== undefined &&
    text.endsWith('\n') &&
    text
      .slice(0, -1)
      .split('\n')
      .every(l => MERGE_LINE.test(l))
  )
}

/** `text` with the lines at `at` replaced (by `line(i)`). */
export function replaceLines(text: string, at: Iterable<number>, line: (i: number) => string): string {
  const lines = text.slice(0, -1).split('\n')
  for (const i of at) lines[i] = line(i)
  return lines.join('\n') + '\n'
}

/** The merge of in-place line edits, or null when diff3 has them conflict. */
export function mergeOracle(base: string, ours: string, theirs: string): string | null {
  const [o, a, b] = [base, ours, theirs].map(t => t.slice(0, -1).split('\n'))
  if (a.length !== o.length || b.length !== o.length) throw new Error('the oracle merges in-place line edits only')
  const out = [...o]
  for (let i = 0; i < o.length;) {
    if (a[i] === o[i] && b[i] === o[i]) {
      i++
      continue
    }
    let end = i
    while (end < o.length && (a[end] !== o[end] || b[end] !== o[end])) end++
    const run = (x: string[]) => x.slice(i, end).join('\n')
    const oursChanged = run(a) !== run(o)
    const theirsChanged = run(b) !== run(o)
    if (oursChanged && theirsChanged && run(a) !== run(b)) return null
    for (let k = i; k < end; k++) out[k] = oursChanged ? a[k] : b[k]
    i = end
  }
  return out.join('\n') + '\n'
}
