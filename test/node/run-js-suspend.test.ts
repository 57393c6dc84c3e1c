import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, RunJsSuspension, type RunJsJournal, type Vfs, type VfsStore } from '../../src/index.js'
import { workerThreads } from '../../src/runtimes/node/index.js'
import { describeRunJsSuspend } from '../run-js/suspend-suite.js'

// One memory store per test: a "restart" is a new workspace and a new runner on it.
describeRunJsSuspend('node, memory store', async () => ({ store: () => memoryStore() }))

// Programs in worker threads: the journal is kept by the host's side of the calls.
const threads = workerThreads({ size: 1, workerUrl: new URL('../run-js/worker-thread-dev.mjs', import.meta.url) })
afterAll(() => threads.close())
describeRunJsSuspend('node, worker threads', async () => ({ store: () => memoryStore(), executor: threads }))

/** Every guest call kind, a tool, the clock, randomness and an import, then a question. */
const PROGRAM = `import { double } from '/skills/math.js'
await vfs.write('/w/a.txt', 'one')
await vfs.write('/w/b.bin', new Uint8Array([1, 2, 3]))
const text = await vfs.read('/w/a.txt')
const bytes = await vfs.readBytes('/w/b.bin')
const names = await vfs.list('/w')
const size = (await vfs.stat('/w/a.txt')).size
const none = await vfs.exists('/w/none')
const txt = await vfs.glob('/w/*.txt')
const hits = (await vfs.grep('one', { paths: ['/w'] })).matches.length
await vfs.write('/w/gone.txt', 'x')
await vfs.remove('/w/gone.txt')
const n = await external_counter({ by: 1 })
const t = Date.now(), r = Math.random()
const { answer } = await external_ask_user({ question: 'go?' })
await vfs.write('/w/after.txt', answer)
return { d: double(2), text, bytes: bytes.length, names, size, none, txt, hits, n, t, r, answer }`

describe('run_js journals resume across executors (worker threads ⇄ this thread)', () => {
  let scopes = 0
  /** A host on `store`: its runner in worker threads or in this thread; counts the workspace's writes and the tool's calls. */
  async function host(store: VfsStore, scope: string, inThreads: boolean) {
    const vfs = await openVfs({ store, namespace: 'cross', scope })
    const writes: string[] = []
    const counted = new Proxy(vfs, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown
        if (typeof value !== 'function') return value
        if (key === 'writeFile' || key === 'deleteFile' || key === 'rmdir')
          return (path: string, ...rest: unknown[]) => (writes.push(`${key} ${path}`), (value as Function).call(target, path, ...rest))
        return (value as Function).bind(target)
      },
    }) as Vfs
    const tool = { ticks: 0 }
    const runJs = createRunJs({
      vfs: counted,
      archiveDir: false,
      ...(inThreads ? { executor: threads } : {}),
      tools: {
        counter: () => ({ n: ++tool.ticks }),
        ask_user: input => {
          throw new RunJsSuspension({ kind: 'question', ...(input as object) })
        },
      },
    })
    return { vfs, runJs, writes, tool }
  }

  for (const [parkIn, resumeIn] of [
    ['worker threads', 'this thread'],
    ['this thread', 'worker threads'],
  ] as const) {
    it(`a program parked in ${parkIn} resumes in ${resumeIn}: same call names, no completed call repeated`, async () => {
      const store = memoryStore()
      const scope = `cross-${scopes++}`
      const first = await host(store, scope, parkIn === 'worker threads')
      await first.vfs.writeFile('/skills/math.js', 'export const double = x => x * 2')
      const parked = await first.runJs.run(PROGRAM, { suspendable: true })
      expect(parked.error?.name).toBe('SuspendedError')
      const journal = JSON.parse(JSON.stringify(parked.suspended!.journal)) as RunJsJournal
      // The guest's names, whichever thread ran it; modules read ahead are not the program's calls.
      expect(journal.calls.map(c => c.call)).toEqual([
        ...['vfs.write', 'vfs.write', 'vfs.read', 'vfs.readBytes', 'vfs.list', 'vfs.stat', 'vfs.exists', 'vfs.glob', 'vfs.grep'],
        ...['vfs.write', 'vfs.remove', 'external_counter', 'Date.now', 'external_ask_user'],
      ])
      expect(first.tool.ticks).toBe(1)
      first.runJs.close()

      const second = await host(store, scope, resumeIn === 'worker threads')
      const done = await second.runJs.run(PROGRAM, { resume: { journal, answer: { value: { answer: 'blue' } } } })
      expect(done.error).toBeUndefined()
      expect(done.result).toMatchObject({ d: 4, text: 'one', bytes: 3, names: ['a.txt', 'b.bin'], size: 3, none: false, hits: 1 })
      expect(done.result).toMatchObject({ txt: ['/w/a.txt'], n: { n: 1 }, answer: 'blue' })
      // Only the write after the question was done; the tool was not called again.
      expect(second.writes).toEqual(['writeFile /w/after.txt'])
      expect(second.tool.ticks).toBe(0)
      expect(await second.vfs.exists('/w/gone.txt')).toBe(false)
      second.runJs.close()
    })
  }

  // Kept from a worker thread before the change (it named calls by the Vfs method: vfs.writeFile, a
  // remove as vfs.stat + vfs.deleteFile, the module read ahead as vfs.readFile, tool answers as text).
  const legacy = JSON.parse(readFileSync(new URL('../run-js/legacy-worker-journal.json', import.meta.url), 'utf8')) as RunJsJournal
  for (const where of ['worker threads', 'this thread'] as const) {
    it(`a journal worker threads wrote before the change still resumes in ${where}, nothing repeated`, async () => {
      expect(legacy.calls.map(c => c.call)).toContain('vfs.writeFile')
      const h = await host(memoryStore(), `legacy-${scopes++}`, where === 'worker threads')
      await h.vfs.writeFile('/skills/math.js', 'export const double = x => x * 2')
      h.writes.length = 0
      const done = await h.runJs.run(PROGRAM, { resume: { journal: structuredClone(legacy), answer: { value: { answer: 'red' } } } })
      expect(done.error).toBeUndefined()
      const recordedNow = JSON.parse((legacy.calls.find(c => c.call === 'Date.now')!.answer as { json: string }).json) as number
      expect(done.result).toMatchObject({ d: 4, text: 'one', bytes: 3, names: ['a.txt', 'b.bin'], size: 3, none: false, hits: 1 })
      expect(done.result).toMatchObject({ txt: ['/w/a.txt'], n: { n: 1 }, t: recordedNow, answer: 'red' })
      expect(h.writes).toEqual(['writeFile /w/after.txt'])
      expect(h.tool.ticks).toBe(0)
      h.runJs.close()
    })
  }

  it('hostile: a changed argument against an old journal still diverges before anything is done', async () => {
    const h = await host(memoryStore(), `legacy-${scopes++}`, false)
    await h.vfs.writeFile('/skills/math.js', 'export const double = x => x * 2')
    h.writes.length = 0
    const changed = PROGRAM.replace("vfs.write('/w/a.txt', 'one')", "vfs.write('/w/a.txt', 'two')")
    const done = await h.runJs.run(changed, { resume: { journal: structuredClone(legacy), answer: { value: { answer: 'red' } } } })
    expect(done).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
    expect(h.writes).toEqual([])
    h.runJs.close()
  })
})
