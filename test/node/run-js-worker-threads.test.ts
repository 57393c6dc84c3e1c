import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, type Vfs } from '../../src/index.js'
import { defaultEngine } from '../../src/internal.js'
import { workerThreads, type WorkerThreadsExecutor } from '../../src/runtimes/node/index.js'
import { MEMORY_BOMBS } from '../run-js/bombs.js'
import { describeRunJs } from '../run-js/suite.js'

// The shared run_js suite with every program run in a pool of worker threads: same guest API, same
// limits, same result shapes as in-thread runs (test/node/run-js.test.ts). See the suite's harness
// notes for what cannot cross threads.
const workerUrl = new URL('../run-js/worker-thread-dev.mjs', import.meta.url)

describeRunJs('node, worker threads', async () => {
  const threads = workerThreads({ size: 2, workerUrl })
  await threads.warm()
  return { store: memoryStore(), executor: threads, cleanup: () => threads.close() }
})

let scopes = 0
const open = (): Promise<Vfs> => openVfs({ store: memoryStore(), namespace: 'threads', scope: `t${++scopes}`, autoRefresh: false })

/** Runs `work` while a 1 ms interval on this thread measures the longest gap between its ticks. */
async function maxStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now()
  let stallMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    stallMs = Math.max(stallMs, now - last)
    last = now
  }, 1)
  try {
    const value = await work()
    return { value, stallMs: Math.max(stallMs, performance.now() - last) }
  } finally {
    clearInterval(timer)
  }
}

/** Fifty programs, every other one hostile: a busy loop first, then memory bombs of every kind. */
const HOSTILE = ['while (true) {}', ...Object.values(MEMORY_BOMBS)]
const NORMAL = `const t = await vfs.read('/in.txt'); let s = 0; for (let i = 0; i < 1000; i++) s += i; return t.length + s`
const MIXED = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? HOSTILE[(i / 2) % HOSTILE.length] : NORMAL))

describe('run_js in worker threads: the host stays free', () => {
  let threads: WorkerThreadsExecutor
  beforeAll(async () => {
    threads = workerThreads({ size: 2, workerUrl })
    await threads.warm()
  })
  afterAll(() => threads.close())

  it('fifty concurrent runs, half of them hostile, never stall this thread (the in-thread runner does, by the length of a busy loop)', async () => {
    const vfs = await open()
    await vfs.writeFile('/in.txt', 'hello')
    const limits = { timeMs: 1000 }
    const pooled = await maxStall(() => Promise.all(MIXED.map(code => createRunJs({ vfs, limits, executor: threads }).run(code))))
    const inThread = await maxStall(() => Promise.all(MIXED.map(code => createRunJs({ vfs, limits }).run(code))))
    for (const { value } of [pooled, inThread]) {
      value.forEach((r, i) => {
        expect(Array.isArray(r.logs)).toBe(true)
        if (i % 2 === 0) expect(r.success, MIXED[i]).toBe(false)
        else if (r.success) expect(r.result).toBe(5 + 499500)
        else expect(r.error?.name).toBe('TimeoutError') // it waited behind the hostile ones
      })
    }
    // The busy loop blocks a thread for its whole time limit; only the in-thread runner's host pays it.
    expect(inThread.stallMs).toBeGreaterThan(800)
    expect(pooled.stallMs).toBeLessThan(500)
    console.log(`max host stall: worker threads ${pooled.stallMs.toFixed(0)} ms, in-thread ${inThread.stallMs.toFixed(0)} ms`)
  }, 120_000)

  it('a thread that does not stop by its deadline is terminated and replaced; the next run works', async () => {
    // Parsing is not interruptible: a 600 KB literal keeps the thread busy far past a 20 ms deadline.
    const backstop = workerThreads({ size: 1, workerUrl, graceMs: 20 })
    try {
      await backstop.warm()
      const runJs = createRunJs({ vfs: await open(), limits: { timeMs: 20 }, executor: backstop })
      const r = await runJs.run(`return [${'1,'.repeat(300_000)}1].length`)
      expect(r).toMatchObject({ success: false, logs: [], error: { name: 'TimeoutError' } })
      expect(r.error?.message).toMatch(/did not stop in time and was replaced/)
      // The replacement starts at once (not on the next run), so the next program pays no cold start.
      expect(backstop.stats()).toMatchObject({ threads: 1, busy: 0, replaced: 1 })
      await backstop.warm()
      const next = await createRunJs({ vfs: await open(), executor: backstop }).run('return 6 * 7')
      expect(next).toMatchObject({ success: true, result: 42 })
      expect(backstop.stats()).toMatchObject({ threads: 1, replaced: 1 })
    } finally {
      await backstop.close()
    }
  }, 60_000)

  it('an abort reaches a synchronous loop in a thread: the thread is replaced, the reason kept', async () => {
    const before = threads.stats().replaced
    const ac = new AbortController()
    // The thread cannot read the abort message while it spins; the pool stops it from here.
    setTimeout(() => ac.abort('enough'), 200)
    const t0 = performance.now()
    const r = await createRunJs({ vfs: await open(), executor: threads, limits: { timeMs: 60_000 } }).run('while (true) {}', {
      signal: ac.signal,
    })
    expect(r.error).toMatchObject({ name: 'AbortError', message: 'run_js was aborted: enough' })
    expect(performance.now() - t0).toBeLessThan(5_000)
    expect(threads.stats().replaced).toBe(before + 1)
    expect((await createRunJs({ vfs: await open(), executor: threads }).run('return 1')).result).toBe(1)
  })

  it('runners sharing a pool wait for a thread in order, against their own deadlines', async () => {
    const one = workerThreads({ size: 1, workerUrl })
    try {
      await one.warm()
      let open1!: () => void
      const gate = new Promise<void>(resolve => (open1 = resolve))
      const holder = createRunJs({ vfs: await open(), executor: one, tools: { gate: () => gate } }).run(
        'await external_gate(); return "held"',
      )
      const late = await createRunJs({ vfs: await open(), executor: one, limits: { timeMs: 300 } }).run('return "late"')
      expect(late.error?.name).toBe('TimeoutError')
      expect(late.error?.message).toMatch(/waiting \d+ ms for a worker thread \(pool of 1\); the program never ran/)
      expect(one.stats()).toMatchObject({ threads: 1, busy: 1, waiting: 0 })
      open1()
      expect((await holder).result).toBe('held')
    } finally {
      await one.close()
    }
  })

  it('refuses what cannot cross threads, and fails clearly when no thread can start', async () => {
    const vfs = await open()
    expect(() => createRunJs({ vfs, executor: threads, engine: defaultEngine() })).toThrow(/engine cannot be combined with an executor/)
    expect(() => createRunJs({ vfs, executor: threads, typescript: () => import('ts-blank-space') })).toThrow(
      /custom typescript loader cannot be combined/,
    )
    const broken = workerThreads({ size: 1, workerUrl: new URL('./no-such-worker.mjs', import.meta.url) })
    const r = await createRunJs({ vfs, executor: broken }).run('return 1')
    expect(r).toMatchObject({ success: false, error: { name: 'InternalError' } })
    expect(r.error?.message).toMatch(/a worker thread could not start/)
    await broken.close()
    expect((await createRunJs({ vfs, executor: broken }).run('return 1')).error?.message).toMatch(/the worker pool was closed/)
  })
})

describe('run_js threads yield the CPU to the host thread', () => {
  /** The niceness of each thread of this process, by thread id (Linux: /proc/self/task/<tid>/stat, field 19). */
  const niceness = async (): Promise<Map<number, number>> => {
    const { readdirSync, readFileSync } = await import('node:fs')
    const out = new Map<number, number>()
    for (const tid of readdirSync('/proc/self/task'))
      out.set(Number(tid), Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]))
    return out
  }

  it.skipIf(process.platform !== 'linux')(
    'on Linux each thread of the pool runs at nice 10 (or as set), the host thread unchanged',
    async () => {
      const before = await niceness()
      for (const [nice, expected] of [
        [undefined, 10],
        [5, 5],
      ] as const) {
        const threads = workerThreads({ size: 1, workerUrl, nice })
        try {
          await threads.warm()
          const added = [...(await niceness())].filter(([tid]) => !before.has(tid)).map(([, n]) => n)
          expect(added).toContain(expected)
          expect((await niceness()).get(process.pid)).toBe(before.get(process.pid))
        } finally {
          await threads.close()
        }
      }
    },
  )
})
