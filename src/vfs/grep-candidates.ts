import type { RE2JS } from 're2js'

/**
 * re2js's literal prefilter of a compiled pattern, as re2js 2.10 keeps it on its RE2 object: a tree
 * of strings every match must contain (`EXACT`), all of (`AND`) or one of (`OR`). re2js checks it
 * before each match; grep uses it over a whole text at once to find the only lines worth testing.
 */
interface PrefilterNode {
  type: number
  str: string
  subs: PrefilterNode[]
}
const EXACT = 1
const AND = 2
const OR = 3

/**
 * Past this many strings the plain line-by-line test is cheaper than scanning the text once per
 * string (re2js then matches an OR of many strings with one Aho-Corasick pass per line anyway).
 */
const MAX_STRINGS = 16

/**
 * Starts of the lines that may match among those starting in `from` … `to` - 1 of a text (`from` a
 * line's start), in increasing order, none twice.
 */
export type CandidateLines = (text: string, from: number, to: number) => number[]

/**
 * The lines of a text a pattern can match at all, found from the strings its prefilter says every
 * match contains. A string's lines come from `indexOf` over the text (skipping to the next line after
 * a hit); an OR's are the union of its parts' lines; an AND's are the lines of its rarest part (guessed
 * from a sample of the text) on which its other parts hold. A line left out cannot contain a match; a
 * line kept may still fail the real test. Undefined when the pattern has no usable prefilter (no
 * required string, case folding, too many strings) or re2js's internals are not the shape this
 * expects: then every line is tested, as before.
 */
export function candidateLines(re: RE2JS): CandidateLines | undefined {
  const tree = (re.re2() as unknown as { prefilter?: unknown }).prefilter
  if (!tree || !usable(tree, { strings: 0 })) return undefined
  const root = tree as PrefilterNode
  return (text, from, to) => linesOf(root, text, from, to)
}

/** Whether a prefilter node has the expected shape, counting its strings against {@link MAX_STRINGS}. */
function usable(node: unknown, count: { strings: number }): boolean {
  const n = node as Partial<PrefilterNode> | null
  if (!n || typeof n !== 'object') return false
  if (n.type === EXACT) return typeof n.str === 'string' && n.str.length > 0 && ++count.strings <= MAX_STRINGS
  if (n.type !== AND && n.type !== OR) return false
  return Array.isArray(n.subs) && n.subs.length > 0 && n.subs.every(s => usable(s, count))
}

function linesOf(node: PrefilterNode, text: string, from: number, to: number): number[] {
  if (node.type === EXACT) return linesContaining(text, node.str, from, to)
  if (node.type === OR) return node.subs.map(s => linesOf(s, text, from, to)).reduce(union)
  // AND: list the lines of the part that looks rarest in a sample, then keep those the rest hold on.
  const sampleEnd = Math.min(to, from + SAMPLE_CHARS)
  let rarest = node.subs[0]
  let fewest = SAMPLE_CAP
  for (const sub of node.subs) {
    const seen = estimate(sub, text, from, sampleEnd, fewest)
    if (seen < fewest) [rarest, fewest] = [sub, seen]
  }
  const rest = node.subs.filter(s => s !== rarest)
  return linesOf(rarest, text, from, to).filter(start => {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    const line = text.slice(start, end)
    return rest.every(s => holds(s, line))
  })
}

/** Characters sampled to guess which part of an AND occurs least, and the count that is "often". */
const SAMPLE_CHARS = 16_384
const SAMPLE_CAP = 32

/**
 * About how often a node holds in `from` … `to` - 1 (occurrences of its strings), counted up to
 * `cap`: past the fewest seen so far a part is not the rarest, and counting on would cost a scan.
 */
function estimate(node: PrefilterNode, text: string, from: number, to: number, cap: number): number {
  if (node.type === OR) {
    let sum = 0
    for (const sub of node.subs) if ((sum += estimate(sub, text, from, to, cap - sum)) >= cap) break
    return sum
  }
  if (node.type === AND) return Math.min(...node.subs.map(s => estimate(s, text, from, to, cap)))
  let count = 0
  for (let i = text.indexOf(node.str, from); i >= 0 && i < to && count < cap; i = text.indexOf(node.str, i + node.str.length)) count++
  return count
}

/** Whether a node holds on one line. */
function holds(node: PrefilterNode, line: string): boolean {
  if (node.type === EXACT) return line.includes(node.str)
  return node.type === AND ? node.subs.every(s => holds(s, line)) : node.subs.some(s => holds(s, line))
}

function union(a: number[], b: number[]): number[] {
  const out: number[] = []
  let j = 0
  for (const x of a) {
    while (j < b.length && b[j] < x) out.push(b[j++])
    if (j < b.length && b[j] === x) j++
    out.push(x)
  }
  while (j < b.length) out.push(b[j++])
  return out
}

/** Starts of the lines in which `needle` starts, at `from` … `to` - 1, in order. */
function linesContaining(text: string, needle: string, from: number, to: number): number[] {
  const out: number[] = []
  for (let i = text.indexOf(needle, from); i >= 0 && i < to;) {
    out.push(text.lastIndexOf('\n', i - 1) + 1)
    const end = text.indexOf('\n', i)
    if (end < 0) break
    i = text.indexOf(needle, end + 1)
  }
  return out
}
