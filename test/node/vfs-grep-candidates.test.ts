import { RE2JS } from 're2js'
import { beforeAll, describe, expect, it } from 'vitest'
import { memoryStore, openVfs, type GrepMatch } from '../../src/index.js'
import { candidateLines } from '../../src/vfs/grep-candidates.js'
import { compileRegex } from '../../src/vfs/regex.js'
import { loadRegexEngine } from '../../src/vfs/regex-engine.js'

/**
 * grep tests only the lines that contain what re2js's prefilter says every match contains. Against a
 * plain reference (every line tested with re2js, as grep did before), on generated texts and patterns,
 * the matches must be the same: a line left out that could match is a lost result.
 */
const WORDS = ['lantern', 'tide', 'NEEDLE', 'salt', 'ab', 'abc', 'b', 'é', '日本', 'a-b', 'x.y', '  ', '']

function rng(seed: number) {
  let x = seed
  return (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n)
}

function text(next: (n: number) => number, lines: number): string {
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const words = Array.from({ length: next(7) }, () => WORDS[next(WORDS.length)])
    out.push(words.join(next(4) === 0 ? '' : ' ') + (next(9) === 0 ? '\r' : ''))
  }
  return out.join('\n') + (next(2) ? '\n' : '')
}

const ATOMS = [
  'lantern',
  'tide',
  'NEEDLE',
  'ab',
  'abc',
  'b',
  'é',
  '日本',
  '\\s+',
  '\\w*',
  '.',
  '[ab]',
  'x\\.y',
  '\\b',
  'a?',
  '(ab|tide)',
  '(?:salt)+',
]
function pattern(next: (n: number) => number): string {
  const part = () => Array.from({ length: 1 + next(3) }, () => ATOMS[next(ATOMS.length)] + ['', '', '*', '+', '?', '{2}'][next(6)]).join('')
  const alternatives = Array.from({ length: 1 + next(3) }, part).join('|')
  return (next(5) === 0 ? '^' : '') + alternatives + (next(5) === 0 ? '$' : '')
}

/** Every line tested on its own with re2js; the column of the first match (lines here are short). */
function reference(path: string, content: string, source: string): GrepMatch[] {
  const re = RE2JS.compile(source)
  const out: GrepMatch[] = []
  const lines = content.split('\n')
  // A final line break ends the last line; no empty line follows it.
  if (content.endsWith('\n')) lines.pop()
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    const m = re.matcher(line)
    if (m.find()) out.push({ path, line: i + 1, column: m.start() + 1, text: line })
  })
  return out
}

function compiles(source: string): boolean {
  try {
    return RE2JS.compile(source) !== undefined
  } catch {
    return false
  }
}

const strip = (ms: GrepMatch[]) => ms.map(({ path, line, column, text }) => ({ path, line, column, text }))

describe('grep tests only candidate lines', () => {
  beforeAll(() => loadRegexEngine())

  it('uses the prefilter where there is one, and not for case folding or a pattern without a required string', async () => {
    expect(candidateLines(compileRegex('lantern\\s+NEEDLE|tide\\s+NEEDLE', false))).toBeDefined()
    expect(candidateLines(compileRegex('x(abc|def)y', false))).toBeDefined()
    expect(candidateLines(compileRegex('NEEDLE', true))).toBeUndefined()
    expect(candidateLines(compileRegex('\\w+\\s\\d', false))).toBeUndefined()
    // More strings than pay for a scan each: every line is tested instead.
    const many = Array.from({ length: 40 }, (_, i) => `w${i}x`).join('|')
    expect(candidateLines(compileRegex(many, false))).toBeUndefined()
  })

  it('finds what testing every line finds, over 400 generated patterns and texts', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'g', scope: 'cand' })
    let used = 0
    let matches = 0
    for (let seed = 1; seed <= 400; seed++) {
      const next = rng(seed)
      const content = text(next, 1 + next(60))
      const source = pattern(next)
      if (!compiles(source)) continue // the generator's nested repetitions (`a?*`), which RE2 refuses
      await vfs.writeFile('/t.txt', content)
      if (candidateLines(compileRegex(source, false))) used++
      const got = await vfs.grep(source, { regex: true, maxMatches: 10_000, paths: ['/t.txt'] })
      const want = reference('/t.txt', content, source)
      expect(strip(got.matches), `seed ${seed}: ${JSON.stringify(source)}`).toEqual(want)
      matches += want.length
    }
    // The generator must exercise the candidate path, and find things.
    expect(used).toBeGreaterThan(120)
    expect(matches).toBeGreaterThan(1000)
  })

  it('a text of several windows: matches at every window edge are found once, and maxMatches still holds', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'g', scope: 'windows' })
    const lines: string[] = []
    // ~3.5 MiB of 70-character lines; a match every 997 lines and on lines around each MiB.
    for (let i = 0; i < 52_000; i++) lines.push((i % 997 === 0 ? 'tide  NEEDLE ' : 'salt lantern ') + 'x'.repeat(57))
    for (const mib of [1, 2, 3]) {
      const line = Math.floor((mib << 20) / 71)
      for (const k of [line - 1, line, line + 1]) lines[k] = 'lantern NEEDLE ' + 'y'.repeat(55)
    }
    const content = lines.join('\n')
    await vfs.writeFile('/big.txt', content)
    const source = 'lantern\\s+NEEDLE|tide\\s+NEEDLE'
    const got = await vfs.grep(source, { regex: true, maxMatches: 10_000 })
    expect(strip(got.matches)).toEqual(reference('/big.txt', content, source))
    expect(got.matches.length).toBeGreaterThan(50)
    const capped = await vfs.grep(source, { regex: true, maxMatches: 7 })
    expect(capped.matches.map(m => m.line)).toEqual(got.matches.slice(0, 7).map(m => m.line))
    expect(capped.truncated).toBe(true)
  })
})
