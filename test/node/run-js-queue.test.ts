import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, type RunJsOptions, type Vfs } from '../../src/index.js'

// The per-runner concurrency limit (issue 7 §2): at most N runs of one runner execute at once, the rest
// wait in FIFO order against their own deadline. Real QuickJS; tools are the host-controlled gates.

let n = 0
const open = (): Promise<Vfs> => openVfs({ store: memoryStore(), namespace: 'queue', scope: `q${++n}`, autoRefresh: false })

/** A gate the host opens; programs wait on it through `external_gate`. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>(resolve => (open = resolve))
  return { open, wait: () => opened }
}

/** Tools that record which programs started, and how many ran at once. */
function tracker(g: ReturnType<typeof gate>) {
  const started: string[] = []
  let inside = 0
  let maxInside = 0
  const tools: RunJsOptions['tools'] = {
    enter: async input => {
      started.push((input as { id: string }).id)
      maxInside = Math.max(maxInside, ++inside)
    },
    gate: () => g.wait(),
    leave: async () => void inside--,
  }
  return { started, tools, max: () => maxInside }
}

const program = (id: string) =>
  `await external_enter({ id: ${JSON.stringify(id)} }); await external_gate(); await external_leave(); return ${JSON.stringify(id)}`
const tick = (ms = 50) => new Promise(resolve => setTimeout(resolve, ms))

describe('run_js: the per-runner queue', () => {
  it('runs at most `concurrency` programs at once; the rest wait', async () => {
    const g = gate()
    const t = tracker(g)
    const runJs = createRunJs({ vfs: await open(), tools: t.tools, concurrency: 2 })
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const runs = ids.map(id => runJs.run(program(id)))
    while (t.started.length < 2) await tick(10)
    await tick(100)
    expect([...t.started].sort()).toEqual(['a', 'b']) // the first two, in whichever order they got going
    g.open()
    const results = await Promise.all(runs)
    expect(results.map(r => r.result)).toEqual(ids)
    expect(t.max()).toBe(2)
  })

  it('waiting runs start in the order they came', async () => {
    const g = gate()
    const t = tracker(g)
    const runJs = createRunJs({ vfs: await open(), tools: t.tools, concurrency: 1 })
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const runs = ids.map(id => runJs.run(program(id)))
    while (t.started.length < 1) await tick(10)
    await tick(100)
    expect(t.started).toEqual(['a'])
    g.open()
    expect((await Promise.all(runs)).map(r => r.result)).toEqual(ids)
    expect(t.started).toEqual(ids)
  })

  it('the default is four at once; Infinity removes the limit', async () => {
    for (const [concurrency, expected] of [
      [undefined, 4],
      [Infinity, 7],
    ] as const) {
      const g = gate()
      const t = tracker(g)
      const runJs = createRunJs({ vfs: await open(), tools: t.tools, ...(concurrency ? { concurrency } : {}) })
      const runs = Array.from({ length: 7 }, (_, i) => runJs.run(program(String(i))))
      while (t.started.length < expected) await tick(10)
      await tick(100)
      expect(t.started.length).toBe(expected)
      g.open()
      expect((await Promise.all(runs)).every(r => r.success)).toBe(true)
    }
  })

  it('a run whose deadline passes while it waits ends with TimeoutError and never runs', async () => {
    const vfs = await open()
    const t = tracker(gate()) // never opened: the first run holds its slot until its own deadline
    const runJs = createRunJs({ vfs, tools: t.tools, concurrency: 1, limits: { timeMs: 300 } })
    const first = runJs.run(program('first'))
    const second = await runJs.run(program('second'))
    expect(second.success).toBe(false)
    expect(second.error?.name).toBe('TimeoutError')
    expect(second.error?.message).toMatch(/waiting \d+ ms for a slot of this runner \(concurrency 1\); the program never ran/)
    expect(second.scriptPath).toBeUndefined()
    expect((await first).error?.name).toBe('TimeoutError')
    expect(t.started).toEqual(['first'])
    expect(await vfs.readdir('/.run_js')).toEqual(['run-001.js']) // only the first was archived
  })

  it('the wait counts against the deadline of a run that does get a slot', async () => {
    const slowFirst = { sleep: () => new Promise(resolve => setTimeout(resolve, 1000)) }
    const runJs = createRunJs({ vfs: await open(), tools: slowFirst, concurrency: 1, limits: { timeMs: 1500 } })
    const t0 = performance.now()
    const first = runJs.run('await external_sleep(); return 1')
    const spinning = await runJs.run('while (true) {}')
    const elapsed = performance.now() - t0
    expect((await first).result).toBe(1)
    expect(spinning.error?.name).toBe('TimeoutError')
    expect(spinning.error?.message).toMatch(
      /it first waited \d+ ms for a slot of this runner \(concurrency 1\); waiting counts against the time limit/,
    )
    const waited = Number(/first waited (\d+) ms/.exec(spinning.error!.message)![1])
    expect(waited).toBeGreaterThanOrEqual(900)
    // Its own 1500 ms started when it was queued: with the wait not counted it would end after ≥ 2500 ms.
    expect(elapsed).toBeLessThan(2300)
  })

  it('an aborted run leaves the line at once, the run ahead of it unaffected', async () => {
    const g = gate()
    const t = tracker(g)
    const runJs = createRunJs({ vfs: await open(), tools: t.tools, concurrency: 1 })
    const first = runJs.run(program('first'))
    const ac = new AbortController()
    const waiting = runJs.run(program('waiting'), { signal: ac.signal })
    const after = runJs.run(program('after'))
    while (t.started.length < 1) await tick(10)
    const t0 = performance.now()
    ac.abort('no longer needed')
    const aborted = await waiting
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(aborted).toMatchObject({
      success: false,
      logs: [],
      error: { name: 'AbortError', message: 'run_js was aborted: no longer needed' },
    })
    let firstDone = false
    void first.then(() => (firstDone = true))
    await tick()
    expect(firstDone).toBe(false)
    g.open()
    expect((await first).result).toBe('first')
    expect((await after).result).toBe('after')
    expect(t.started).toEqual(['first', 'after'])
  })

  it('beyond `maxQueued` waiting runs, a run ends at once with QueueFullError (EBUSY)', async () => {
    const g = gate()
    const t = tracker(g)
    const runJs = createRunJs({ vfs: await open(), tools: t.tools, concurrency: 1, maxQueued: 2 })
    const accepted = ['a', 'b', 'c'].map(id => runJs.run(program(id)))
    const refused = await runJs.run(program('d'))
    expect(refused.success).toBe(false)
    expect(refused.error).toMatchObject({ name: 'QueueFullError', code: 'EBUSY' })
    expect(refused.error?.message).toMatch(/2 runs are already waiting .*\(at most 2 may wait\)/)
    g.open()
    expect((await Promise.all(accepted)).map(r => r.result)).toEqual(['a', 'b', 'c'])
    expect(t.started).toEqual(['a', 'b', 'c'])
    // Once the line is short again, runs are accepted.
    expect((await runJs.run(program('e'))).result).toBe('e')
  })

  it('refuses counts that cannot hold', async () => {
    const vfs = await open()
    for (const bad of [0, -1, 1.5, NaN]) {
      expect(() => createRunJs({ vfs, concurrency: bad })).toThrow(/concurrency must be a positive integer or Infinity/)
      expect(() => createRunJs({ vfs, maxQueued: bad })).toThrow(/maxQueued must be a positive integer or Infinity/)
    }
  })
})
