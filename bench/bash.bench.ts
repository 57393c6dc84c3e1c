/**
 * agent-vfs/bash against the plainest code doing the same job, in one run (ratios):
 * `bash.grep` (`grep -rn WORD /context | wc -l` over 60 episodes vs `vfs.grep` on the same files),
 * `bash.find` (`find … | xargs wc -l` over 1,000 files vs the same walk and line count through the
 * workspace API), `bash.exec.overhead` (one small command line vs just-bash over its own InMemoryFs).
 * `bash.grep.justbash` and `bash.find.justbash` time the same command line in just-bash over its own
 * InMemoryFs holding the same files, in the same rounds: what just-bash costs without our filesystem
 * (`…justbash.floor`, against the workspace API) and what our filesystem adds to it (`…justbash`).
 */
import { Bash, InMemoryFs } from 'just-bash'
import { memoryStore, openVfs, type Vfs } from '../src/index.js'
import { createBash } from '../src/bash/index.js'
import { compareMedian, interleavedMedians, Results, size, wanted } from './harness.js'

const results = new Results('bash.json')
const words = ['lantern', 'harbour', 'stranger', 'ledger', 'tide', 'salt', 'clinic', 'rowboat', 'night', 'day']

async function grepBench() {
  if (!wanted('bash.grep')) return
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'grep' })
  let x = 7
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), x)
  for (let f = 0; f < size(60, 3); f++) {
    let s = ''
    // WORD on one line in 97 from the tenth, counted rather than drawn: smoke mode's short files hold one each
    for (let line = 1; s.length < size(50_000, 2_000); line++)
      s += Array.from({ length: 8 }, () => words[next() % 10]).join(' ') + (line % 97 === 10 ? ' WORD' : '') + '\n'
    await vfs.writeFile(`/context/ep${f}.md`, s)
  }
  const bash = createBash({ vfs })
  const theirs = new Bash({ fs: new InMemoryFs(await contents(vfs, '/context/*.md')), cwd: '/' })
  const line = 'grep -rn WORD /context | wc -l'
  let [a, b, c] = [0, 0, 0]
  const [ours, baseline, justBash] = await interleavedMedians(
    [
      async () => (a = Number((await bash.exec(line)).stdout.trim())),
      async () => (b = (await vfs.grep('WORD', { paths: ['/context'], maxMatches: 10_000 })).matches.length),
      async () => (c = Number((await theirs.exec(line)).stdout.trim())),
    ],
    { rounds: 7, warmup: 2 },
  )
  if (a !== b || a !== c || a === 0) throw new Error(`bash.grep: ${a} lines, vfs.grep ${b}, just-bash over InMemoryFs ${c}`)
  results.add({ name: 'bash.grep', unit: 'ms', better: 'lower', ours, baseline, target: 'ratio <= 3', baselineLabel: 'vfs.grep' })
  addJustBash('bash.grep', ours, baseline, justBash, 'vfs.grep')
}

async function findBench() {
  if (!wanted('bash.find')) return
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'find' })
  const files = size(1000, 20)
  await Promise.all(Array.from({ length: files }, (_, i) => vfs.writeFile(`/work/d${i % 10}/f${i}.txt`, 'a\nb\nc\n')))
  const bash = createBash({ vfs, limits: { maxLoopIterations: 100_000, maxCommands: 100_000 } })
  const theirs = new Bash({ fs: new InMemoryFs(await contents(vfs, '/work/**/*.txt')), cwd: '/' })
  const line = "find /work -name '*.txt' | xargs wc -l | tail -1"
  const total = async (shell: { exec(line: string): Promise<{ stdout: string }> }) =>
    Number((await shell.exec(line)).stdout.trim().split(/\s+/)[0])
  let [a, b, c] = [0, 0, 0]
  const [ours, baseline, justBash] = await interleavedMedians(
    [
      async () => (a = await total(bash)),
      async () => {
        b = 0
        for (const e of (await vfs.walk('/work/**/*.txt')).entries) b += (await vfs.readFile(e.path, 'utf8')).split('\n').length - 1
      },
      async () => (c = await total(theirs)),
    ],
    { rounds: 5, warmup: 1 },
  )
  if (a !== b || a !== c) throw new Error(`bash.find: ${a} lines, the walk ${b}, just-bash over InMemoryFs ${c}`)
  results.add({
    name: 'bash.find',
    unit: 'ms',
    better: 'lower',
    ours,
    baseline,
    target: 'ratio <= 3',
    baselineLabel: 'vfs.walk + readFile',
  })
  addJustBash('bash.find', ours, baseline, justBash, 'vfs.walk + readFile')
}

/** The files matching `pattern`, as InMemoryFs takes them. */
async function contents(vfs: Vfs, pattern: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of (await vfs.walk(pattern)).entries) out[e.path] = await vfs.readFile(e.path, 'utf8')
  return out
}

/** The rows that set a figure against just-bash over its own InMemoryFs (see the header). */
function addJustBash(name: string, ours: number, api: number, justBash: number, apiLabel: string) {
  results.add({
    name: `${name}.justbash`,
    unit: 'ms',
    better: 'lower',
    ours,
    baseline: justBash,
    target: 'ratio <= 1.5',
    baselineLabel: 'the same command line in just-bash over its InMemoryFs holding the same files',
  })
  results.add({
    name: `${name}.justbash.floor`,
    unit: 'ms',
    better: 'lower',
    ours: justBash,
    baseline: api,
    target: 'report',
    baselineLabel: `${apiLabel} (ours here is just-bash over its InMemoryFs: what just-bash costs with no workspace under it)`,
  })
}

async function overheadBench() {
  if (!wanted('bash.exec.overhead')) return
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'overhead' })
  await vfs.writeFile('/work/a.txt', 'one\ntwo\nthree\n')
  const ours = createBash({ vfs })
  const theirs = new Bash({ fs: new InMemoryFs({ '/work/a.txt': 'one\ntwo\nthree\n' }), cwd: '/' })
  const line = 'grep -c o /work/a.txt && cat /work/a.txt | sort | head -1'
  const n = size(50, 3)
  const r = await compareMedian(
    async () => {
      for (let i = 0; i < n; i++) await ours.exec(line)
    },
    async () => {
      for (let i = 0; i < n; i++) await theirs.exec(line)
    },
    { rounds: 7, warmup: 2 },
  )
  results.add({
    name: 'bash.exec.overhead',
    unit: 'ms per command line',
    better: 'lower',
    ours: r.ours / n,
    baseline: r.baseline / n,
    target: 'ratio <= 1.5',
    baselineLabel: 'just-bash over its InMemoryFs',
  })
}

await grepBench()
await findBench()
await overheadBench()
