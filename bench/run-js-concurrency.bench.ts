/**
 * Fifty concurrent run_js programs on one runner, half of them hostile (issue 7 §2), three ways:
 *
 * - baseline: in-thread, no concurrency limit (`concurrency: Infinity`: every run starts at once);
 * - `queue`: in-thread with the default per-runner limit (4 at once, the rest wait in FIFO order);
 * - `threads`: `workerThreads()` (agent-vfs/run-js/node), the runner's default limit in front.
 *
 * Two workloads: `bombs` (memory bombs of every kind, default limits) and `loops` (`while (true) {}`,
 * `timeMs` 1,000). Measured: the longest gap of a 1 ms interval on the host thread (`stall`, ms), the
 * share of the 25 normal programs that succeed (`done`, %), their median and slowest latency from
 * submission (`latency.p50`/`latency.max`, ms; only for configurations where some succeed), and the
 * peak RSS (`rss`, MB).
 *
 * `fair` (issue 15): fifty on `workerThreads()`, one runner per program (a session each), 25 busy loops
 * from one owner submitted first, then 25 normal programs from another: `runjs.concurrency.fair.done`
 * is the share of the other owner's programs that succeed, `runjs.concurrency.fair.stall` the longest
 * host event-loop gap (ms); ours passes each program's owner as its tenant (threads shared fairly),
 * the baseline does not (one FIFO line).
 *
 * `npm run bench -- runjs.concurrency`; RUNJS_THREADS sets the pool size (default: the machine's
 * parallelism, 1 to 8).
 */
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRunJs, memoryStore, openVfs, type RunJsOptions, type Vfs } from '../src/index.js'
import { workerThreads, type WorkerThreadsExecutor } from '../src/runtimes/node/index.js'
import { MEMORY_BOMBS } from '../test/run-js/bombs.js'
import { Results, size, smoke, wantedAny, type Measurement } from './harness.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const results = new Results('run-js-concurrency.json')
const recorded: Measurement[] = []
const BASELINE = 'in-thread runner, no concurrency limit'
// Smoke mode: a few runs, enough to exercise every configuration.
const RUNS = size(50, 6)
const NORMAL = (i: number) =>
  `const t = await vfs.read('/in.txt'); let s = 0; for (let i = 0; i < 10000; i++) s += i; await vfs.write('/out/${i}.txt', String(s)); return t.length + s`
const EXPECTED = 5 + 49995000

const workloads: Record<string, { hostile: string[]; limits: RunJsOptions['limits'] }> = {
  bombs: { hostile: Object.values(MEMORY_BOMBS), limits: {} },
  loops: { hostile: ['while (true) {}'], limits: { timeMs: 1000 } },
}

interface Outcome {
  stallMs: number
  stallCpuMs: number
  done: number
  latencies: number[]
  rssMb: number
  wallMs: number
}

async function workspace(): Promise<Vfs> {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: `conc-${Math.random().toString(36).slice(2)}` })
  await vfs.writeFile('/in.txt', 'hello')
  return vfs
}

/**
 * A 1 ms interval on the host thread: the longest gap between its ticks (a stall), the host thread's
 * own CPU time during that gap (`stallCpuMs`: near the gap, the thread was busy, i.e. blocked by its
 * own work; near 0, it was waiting to be scheduled on a busy machine), and the peak RSS.
 */
function watchHost(): { stop(): { stallMs: number; stallCpuMs: number; rssMb: number } } {
  const cpuNow = () => {
    const u = process.threadCpuUsage()
    return (u.user + u.system) / 1000
  }
  let last = performance.now()
  let lastCpu = cpuNow()
  let stallMs = 0
  let stallCpuMs = 0
  let rssMb = 0
  const tick = () => {
    const now = performance.now()
    const cpu = cpuNow()
    if (now - last > stallMs) {
      stallMs = now - last
      stallCpuMs = cpu - lastCpu
    }
    last = now
    lastCpu = cpu
  }
  const timer = setInterval(() => {
    tick()
    rssMb = Math.max(rssMb, process.memoryUsage.rss() / 1024 / 1024)
  }, 1)
  return {
    stop() {
      clearInterval(timer)
      tick()
      return { stallMs, stallCpuMs, rssMb }
    },
  }
}

/** All fifty at once on one runner, while a 1 ms interval watches the host thread. */
async function measure(options: Omit<RunJsOptions, 'vfs'>, hostile: string[]): Promise<Outcome> {
  const vfs = await workspace()
  const runJs = createRunJs({ vfs, archiveDir: false, ...options })
  const watch = watchHost()
  const t0 = performance.now()
  const latencies: number[] = []
  let done = 0
  await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      if (i % 2 === 0) return runJs.run(hostile[(i / 2) % hostile.length])
      const r = await runJs.run(NORMAL(i))
      if (r.success && r.result === EXPECTED) {
        done++
        latencies.push(performance.now() - t0)
      }
    }),
  )
  const wallMs = performance.now() - t0
  const { stallMs, stallCpuMs, rssMb } = watch.stop()
  runJs.close()
  return { stallMs, stallCpuMs, done: (done / (RUNS / 2)) * 100, latencies: latencies.sort((a, b) => a - b), rssMb, wallMs }
}

/**
 * Fifty runs, one runner each (a session each): first the flood, 25 busy loops of owner `busy` with the
 * default time limit (10 s), then 25 normal programs of owner `calm`.
 */
async function measureOwners(threads: WorkerThreadsExecutor, tenants: boolean): Promise<Outcome> {
  const vfs = await workspace()
  const watch = watchHost()
  const t0 = performance.now()
  const latencies: number[] = []
  let done = 0
  await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const busy = i < RUNS / 2
      const runJs = createRunJs({
        vfs,
        archiveDir: false,
        executor: threads,
        ...(tenants ? { tenant: busy ? 'busy' : 'calm' } : {}),
      })
      const r = await runJs.run(busy ? 'while (true) {}' : NORMAL(i))
      runJs.close()
      if (!busy && r.success && r.result === EXPECTED) {
        done++
        latencies.push(performance.now() - t0)
      }
    }),
  )
  const wallMs = performance.now() - t0
  const { stallMs, stallCpuMs, rssMb } = watch.stop()
  return { stallMs, stallCpuMs, done: (done / (RUNS / 2)) * 100, latencies: latencies.sort((a, b) => a - b), rssMb, wallMs }
}

async function fair(threads: WorkerThreadsExecutor) {
  const prefix = 'runjs.concurrency.fair'
  if (!wantedAny(prefix)) return
  const base = await measureOwners(threads, false)
  const ours = await measureOwners(threads, true)
  // The same watch with no program at all, as long as ours took: what the machine's load alone stalls the thread.
  const idleWatch = watchHost()
  await new Promise(r => setTimeout(r, ours.wallMs))
  const idle = idleWatch.stop()
  const baselineLabel = 'workerThreads() with one FIFO line (no tenants)'
  console.log(
    `  fair: wall ms — baseline ${base.wallMs.toFixed(0)}, ours ${ours.wallMs.toFixed(0)}; done ${base.done}% → ${ours.done}%; stall ${base.stallMs.toFixed(0)} → ${ours.stallMs.toFixed(0)} ms (host thread CPU in it ${base.stallCpuMs.toFixed(0)} → ${ours.stallCpuMs.toFixed(0)} ms); no program: ${idle.stallMs.toFixed(0)} ms (CPU ${idle.stallCpuMs.toFixed(0)} ms); load ${loadavg()[0].toFixed(1)}`,
  )
  add({
    name: `${prefix}.stall.idle`,
    unit: 'ms max host event-loop gap',
    better: 'lower',
    ours: ours.stallMs,
    baseline: idle.stallMs,
    baselineLabel: 'the same watch as long, no program running (the machine alone)',
  })
  add({
    name: `${prefix}.stall.cpu`,
    unit: 'ms host-thread CPU within the longest gap',
    better: 'lower',
    ours: ours.stallCpuMs,
    baseline: ours.stallMs,
    baselineLabel: 'the longest gap itself (ratio near 1: the thread was busy; near 0: it waited for a core)',
  })
  add({
    name: `${prefix}.done`,
    unit: "% of the other owner's programs succeeding",
    better: 'higher',
    ours: ours.done,
    baseline: Math.max(base.done, 0.001),
    baselineLabel,
  })
  add({
    name: `${prefix}.stall`,
    unit: 'ms max host event-loop gap',
    better: 'lower',
    ours: ours.stallMs,
    baseline: base.stallMs,
    baselineLabel,
  })
}

function add(m: Omit<Measurement, 'ratio'>) {
  recorded.push(results.add(m))
}

async function scenario(name: string, threads: WorkerThreadsExecutor) {
  const prefix = `runjs.concurrency.${name}`
  if (!wantedAny(prefix)) return
  const { hostile, limits } = workloads[name]
  const base = await measure({ limits, concurrency: Infinity }, hostile)
  const configs: Record<string, Outcome> = {
    queue: await measure({ limits }, hostile),
    threads: await measure({ limits, executor: threads }, hostile),
  }
  console.log(
    `  ${name}: wall ms — baseline ${base.wallMs.toFixed(0)}, ${Object.entries(configs)
      .map(([k, o]) => `${k} ${o.wallMs.toFixed(0)}`)
      .join(', ')}`,
  )
  for (const [config, o] of Object.entries(configs)) {
    const label = { baselineLabel: BASELINE }
    add({
      name: `${prefix}.stall.${config}`,
      unit: 'ms max host event-loop gap',
      better: 'lower',
      ours: o.stallMs,
      baseline: base.stallMs,
      ...label,
    })
    add({
      name: `${prefix}.done.${config}`,
      unit: '% of normal programs succeeding',
      better: 'higher',
      ours: o.done,
      baseline: Math.max(base.done, 0.001),
      ...label,
    })
    if (o.latencies.length && base.latencies.length) {
      const p50 = (xs: number[]) => xs[Math.floor(xs.length / 2)]
      add({
        name: `${prefix}.latency.p50.${config}`,
        unit: 'ms, normal programs (median)',
        better: 'lower',
        ours: p50(o.latencies),
        baseline: p50(base.latencies),
        ...label,
      })
      add({
        name: `${prefix}.latency.max.${config}`,
        unit: 'ms, normal programs (slowest)',
        better: 'lower',
        ours: o.latencies.at(-1)!,
        baseline: base.latencies.at(-1)!,
        ...label,
      })
    } else {
      console.log(
        `  ${prefix}.latency.${config}: no latency ratio (succeeded: ${config} ${o.latencies.length}, baseline ${base.latencies.length})`,
      )
    }
    add({ name: `${prefix}.rss.${config}`, unit: 'MB peak RSS', better: 'lower', ours: o.rssMb, baseline: base.rssMb, ...label })
  }
}

function writeTable() {
  // Smoke figures mean nothing (tiny sizes, one round): record nothing, like Results.
  if (recorded.length === 0 || smoke) return
  const lines = [
    '# run_js under fifty concurrent runs, half hostile',
    '',
    `Last run: ${new Date().toISOString()}, Node ${process.version}, \`npm run bench -- runjs.concurrency\`. Ratio = ours / baseline (${BASELINE}).`,
    '',
    '| name | ours | baseline | ratio | unit (better) |',
    '|---|---|---|---|---|',
    ...recorded.map(m => `| ${m.name} | ${m.ours} | ${m.baseline} | ${m.ratio} | ${m.unit} (${m.better}) |`),
    '',
  ]
  writeFileSync(join(root, 'bench', 'results', 'run-js-concurrency.md'), lines.join('\n'))
}

const threadCount = process.env.RUNJS_THREADS ? Number(process.env.RUNJS_THREADS) : undefined
// From source, threads start through the tsx shim; the published package needs no workerUrl.
const threads = workerThreads({ size: threadCount, workerUrl: new URL('../test/run-js/worker-thread-dev.mjs', import.meta.url) })
if (wantedAny('runjs.concurrency')) await threads.warm()
try {
  await scenario('bombs', threads)
  await scenario('loops', threads)
  await fair(threads)
} finally {
  await threads.close()
}
writeTable()
