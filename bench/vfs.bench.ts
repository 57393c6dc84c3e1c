/**
 * In-memory read paths of the workspace against the plainest code that does the same job:
 * `vfs.read.1kb` (readFile of 1 KB files vs Map.get + TextDecoder) and `vfs.grep.literal` /
 * `vfs.grep.regex` (grep over 60 files × 50 KB vs a plain loop over the same strings).
 * Store-backed write and hydrate measurements live in vfs-sql.bench.ts.
 */
import { memoryStore, openVfs, type Vfs } from '../src/index.js'
import { MAX_GREP_MATCHES } from '../src/internal.js'
import { compareMedian, Results, size, wanted } from './harness.js'

const results = new Results('vfs.json')

async function readBench() {
  if (!wanted('vfs.read.1kb')) return
  const files = size(1000, 20)
  const line = 'The quick brown fox jumps over the lazy dog — ünïcødé. '
  const text = (i: number) => (`${i}: ` + line.repeat(20)).slice(0, 1024)
  const store = memoryStore()
  const seeded = await openVfs({ store, namespace: 'bench', scope: 'read' })
  await Promise.all(Array.from({ length: files }, (_, i) => seeded.writeFile(`/docs/${i}.md`, text(i))))
  const map = new Map<string, Uint8Array>()
  for (let i = 0; i < files; i++) map.set(`/docs/${i}.md`, new TextEncoder().encode(text(i)))
  const decoder = new TextDecoder()
  let vfs!: Vfs
  let sink = 0
  // A freshly opened workspace per round, so decoding is measured (the decoded-text cache starts cold).
  const { ours, baseline } = await compareMedian(
    async () => {
      for (let i = 0; i < files; i++) sink += (await vfs.readFile(`/docs/${i}.md`, 'utf8')).length
    },
    () => {
      for (let i = 0; i < files; i++) sink += decoder.decode(map.get(`/docs/${i}.md`)).length
    },
    { rounds: 15, warmup: 3, setup: async () => (vfs = await openVfs({ store, namespace: 'bench', scope: 'read' })) },
  )
  if (sink === 0) throw new Error('nothing read')
  results.add({
    name: 'vfs.read.1kb',
    unit: 'µs per read',
    better: 'lower',
    ours: (ours * 1000) / files,
    baseline: (baseline * 1000) / files,
    target: 'ratio <= 3',
    baselineLabel: 'Map.get + TextDecoder.decode',
  })
}

async function grepBench() {
  const texts = new Map<string, string>()
  const words = ['lantern', 'harbour', 'stranger', 'ledger', 'tide', 'salt', 'clinic', 'rowboat', 'night', 'day']
  let x = 7
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), x)
  const fileCount = size(60, 3)
  const fileChars = size(50_000, 2_000)
  for (let f = 0; f < fileCount; f++) {
    let s = ''
    while (s.length < fileChars) {
      const n = 5 + (next() % 9)
      s += Array.from({ length: n }, () => words[next() % words.length]).join(' ') + (next() % 97 === 0 ? ' NEEDLE' : '') + '\n'
    }
    texts.set(`/context/episodes/${String(f).padStart(2, '0')}.md`, s)
  }
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'grep' })
  await Promise.all([...texts].map(([p, t]) => vfs.writeFile(p, t)))
  for (const [kind, pattern] of [
    ['literal', 'NEEDLE'],
    ['regex', 'lantern\\s+NEEDLE|tide\\s+NEEDLE'],
  ] as const) {
    const name = `vfs.grep.${kind}`
    if (!wanted(name)) continue
    const re = new RegExp(pattern)
    let expected = 0
    const { ours, baseline } = await compareMedian(
      async () => {
        const r = await vfs.grep(pattern, { regex: kind === 'regex', maxMatches: MAX_GREP_MATCHES })
        if (expected && r.matches.length !== expected) throw new Error(`grep found ${r.matches.length}, the loop ${expected}`)
      },
      () => {
        const out: Array<{ path: string; line: number; text: string }> = []
        for (const [path, text] of texts) {
          const lines = text.split('\n')
          for (let i = 0; i < lines.length; i++) {
            if (kind === 'literal' ? lines[i].includes(pattern) : re.test(lines[i])) out.push({ path, line: i + 1, text: lines[i] })
          }
        }
        expected = out.length
      },
      { rounds: 15, warmup: 2 },
    )
    results.add({
      name,
      unit: 'ms per grep',
      better: 'lower',
      ours,
      baseline,
      target: 'ratio <= 2',
      baselineLabel: 'split lines + includes/test loop over the same strings',
    })
  }
}

await readBench()
await grepBench()
