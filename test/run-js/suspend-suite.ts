import { describe, expect, it } from 'vitest'
import {
  createRunJs,
  openVfs,
  RunJsSuspension,
  type QuickJsEngine,
  type RunJsExecutor,
  type RunJsJournal,
  type RunJsTool,
  type Vfs,
  type VfsStore,
} from '../../src/index.js'

/** What a runtime gives the suspension suite: a store that outlives a "restart" (a new workspace and runner on it). */
export interface SuspendHarness {
  store: () => VfsStore
  engine?: QuickJsEngine
  /** Programs run in another thread; the journal stays with the host's calls, the clock's readings cross to it. */
  executor?: RunJsExecutor
}

/** `ask_user` as a program sees it: always parks the program (the answer comes with the resume). */
const askTool: RunJsTool = input => {
  throw new RunJsSuspension({ kind: 'question', ...(input as object) })
}

/**
 * Programs that ask and wait, the same in every runtime: a program parks on a call that asks a
 * person, its journal survives a restart (kept as JSON, as a host stores it), and the resumed
 * program replays against it without repeating a completed host call.
 */
export function describeRunJsSuspend(name: string, setup: () => Promise<SuspendHarness>): void {
  describe(`run_js programs that ask and wait (${name})`, () => {
    let n = 0
    async function host(h: SuspendHarness, store: VfsStore, scope: string, tools: Record<string, RunJsTool> = { ask_user: askTool }) {
      const vfs = await openVfs({ store, namespace: 'suspend', scope })
      const runJs = createRunJs({
        vfs,
        tools,
        archiveDir: false,
        ...(h.engine ? { engine: h.engine } : {}),
        ...(h.executor ? { executor: h.executor } : {}),
      })
      return { vfs, runJs }
    }
    /** The journal as a host keeps it: JSON text in durable storage. */
    const kept = (j: RunJsJournal): RunJsJournal => JSON.parse(JSON.stringify(j)) as RunJsJournal

    const PROGRAM = `
      await vfs.write('/out/before.txt', 'written once')
      const seen = await vfs.read('/out/before.txt')
      const t = Date.now(), r = Math.random(), d = new Date().getTime()
      const { answer } = await external_ask_user({ question: 'Which colour?', options: ['red', 'blue'] })
      await vfs.write('/out/after.txt', answer)
      return { seen, answer, same: d === t || d >= t, t, r }`

    it('parks on the question, and after a restart resumes with the answer without redoing the write', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `ask-${n++}`
      const first = await host(h, store, scope)
      const parked = await first.runJs.run(PROGRAM, { suspendable: true })
      expect(parked).toMatchObject({ success: false, error: { name: 'SuspendedError' } })
      expect(parked.suspended?.call).toBe('external_ask_user')
      expect(parked.suspended?.request).toEqual({ kind: 'question', question: 'Which colour?', options: ['red', 'blue'] })
      const version = (await first.vfs.stat('/out/before.txt')).version
      expect(await first.vfs.exists('/out/after.txt')).toBe(false)
      const journal = kept(parked.suspended!.journal)
      first.runJs.close()

      // A new host on the same store: nothing of the first run survives but the store and the journal.
      const second = await host(h, store, scope)
      const done = await second.runJs.run(PROGRAM, { resume: { journal, answer: { value: { answer: 'blue' } } } })
      expect(done).toMatchObject({ success: true, result: { seen: 'written once', answer: 'blue', same: true } })
      expect((await second.vfs.stat('/out/before.txt')).version).toBe(version) // not written again
      expect(await second.vfs.readFile('/out/after.txt', 'utf8')).toBe('blue')
      // Time and randomness came from the journal.
      const r = done.result as { t: number; r: number }
      const recordedNow = journal.calls.find(c => c.call === 'Date.now')!
      expect(r.t).toBe(JSON.parse((recordedNow.answer as { json: string }).json))
      second.runJs.close()
    })

    it('Date.now and Math.random before and after the question replay exactly, and the resume does not diverge', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `clock-${n++}`
      const first = await host(h, store, scope)
      // The first write is named by the time and holds the random number: another value on replay diverges.
      const code = `
        const t1 = Date.now(), r1 = Math.random(), d1 = new Date().getTime()
        await vfs.write('/t-' + t1 + '.txt', String(r1))
        const { answer } = await external_ask_user({ question: 'go?' })
        const t2 = Date.now(), r2 = Math.random()
        await vfs.write('/after.txt', answer + ' ' + t2 + ' ' + r2)
        return { t1, r1, d1, t2, r2 }`
      const parked = await first.runJs.run(code, { suspendable: true })
      expect(parked.suspended?.call).toBe('external_ask_user')
      const journal = kept(parked.suspended!.journal)
      const times = journal.calls.filter(c => c.call === 'Date.now').map(c => JSON.parse((c.answer as { json: string }).json) as number)
      expect(times).toHaveLength(2) // Date.now() and new Date(), in the order the program read them
      const [written] = (await first.vfs.readdir('/')).filter(p => p.startsWith('t-'))
      const version = (await first.vfs.stat('/' + written)).version
      first.runJs.close()
      await new Promise(resolve => setTimeout(resolve, 5)) // the clock moves on before the resume

      const second = await host(h, store, scope)
      const done = await second.runJs.run(code, { resume: { journal, answer: { value: { answer: 'yes' } } } })
      expect(done.error).toBeUndefined()
      const r = done.result as { t1: number; r1: number; d1: number; t2: number; r2: number }
      expect([r.t1, r.d1]).toEqual(times)
      expect(written).toBe(`t-${r.t1}.txt`)
      expect(await second.vfs.readFile('/' + written, 'utf8')).toBe(String(r.r1))
      expect((await second.vfs.stat('/' + written)).version).toBe(version) // replayed, not written again
      expect(r.t2).toBeGreaterThan(r.t1)
      expect(await second.vfs.readFile('/after.txt', 'utf8')).toBe(`yes ${r.t2} ${r.r2}`)
      // The same seed: the second random number follows the first as it would have in one run.
      expect(r.r2).not.toBe(r.r1)
      second.runJs.close()
    })

    it('hostile: a resumed program that reads the clock where the journal has another call diverges, and does nothing', async () => {
      const h = await setup()
      const { vfs, runJs } = await host(h, h.store(), `clock-order-${n++}`)
      const parked = await runJs.run(`await vfs.exists('/x'); const t = Date.now(); await external_ask_user({ question: 'q' }); return t`, {
        suspendable: true,
      })
      const journal = kept(parked.suspended!.journal)
      const swapped = await runJs.run(
        `const t = Date.now(); await vfs.write('/late.txt', String(t)); await external_ask_user({ question: 'q' }); return t`,
        { resume: { journal, answer: { value: {} } } },
      )
      expect(swapped).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
      expect(swapped.error!.message).toMatch(/host call 1 of the resumed program is Date\.now\(\), but the journal recorded vfs\.exists/)
      expect(await vfs.exists('/late.txt')).toBe(false)
      runJs.close()
    })

    it('an answer that is an error throws in the program; a run that is not suspendable cannot ask', async () => {
      const h = await setup()
      const store = h.store()
      const { runJs } = await host(h, store, `err-${n++}`)
      const code = `try { await external_ask_user({ question: 'ok?' }) } catch (e) { return e.name + ': ' + e.message }`
      const parked = await runJs.run(code, { suspendable: true })
      const done = await runJs.run(code, {
        resume: { journal: kept(parked.suspended!.journal), answer: { error: { name: 'DeniedError', message: 'no' } } },
      })
      expect(done).toMatchObject({ success: true, result: 'DeniedError: no' })
      const plain = await runJs.run(code)
      expect(plain.success).toBe(true)
      expect(plain.result).toMatch(/^SuspendError: external_ask_user waits for a person, but this run cannot wait/)
      runJs.close()
    })

    it('hostile: a program that changes its calls on replay fails clearly, and its writes are not done', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `diverge-${n++}`
      const { vfs, runJs } = await host(h, store, scope)
      const parked = await runJs.run(`await vfs.write('/a.txt', 'one'); await external_ask_user({ question: 'go?' }); return 1`, {
        suspendable: true,
      })
      const journal = kept(parked.suspended!.journal)
      const v = (await vfs.stat('/a.txt')).version
      // Another argument for the recorded write: refused before anything is done.
      const changed = await runJs.run(`await vfs.write('/a.txt', 'two'); await external_ask_user({ question: 'go?' }); return 1`, {
        resume: { journal, answer: { value: { answer: 'yes' } } },
      })
      expect(changed).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
      expect(changed.error!.message).toMatch(
        /host call 1 of the resumed program is vfs\.write.*"\/a\.txt",.*"two".*but the journal recorded vfs\.write.*"one"/,
      )
      expect(await vfs.readFile('/a.txt', 'utf8')).toBe('one')
      expect((await vfs.stat('/a.txt')).version).toBe(v)
      // Another call in its place (the write to another file is not done either).
      const other = await runJs.run(`await vfs.write('/b.txt', 'x'); return 1`, { resume: { journal, answer: { value: {} } } })
      expect(other).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
      expect(await vfs.exists('/b.txt')).toBe(false)
      // A program that ends before reaching the call that asked.
      const short = await runJs.run(`await vfs.write('/a.txt', 'one'); return 2`, { resume: { journal, answer: { value: {} } } })
      expect(short).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
      expect((await vfs.stat('/a.txt')).version).toBe(v)
      runJs.close()
    })

    it('hostile: a source outside the journal (a host tool that answers differently) makes the replay diverge', async () => {
      const h = await setup()
      const store = h.store()
      const { vfs, runJs } = await host(h, store, `source-${n++}`)
      // The program names its file after the time: replayed, Date.now comes from the journal, so it matches;
      // a program that reads the time through a tool the journal answers also matches; only an outside source differs.
      let tick = 0
      const tools = { ask_user: askTool, counter: () => ++tick }
      const live = await host(h, store, `source-${n++}`, tools)
      const code = `const k = await external_counter(); await vfs.write('/n-' + k + '.txt', 'x'); await external_ask_user({ question: 'q' }); return k`
      const parked = await live.runJs.run(code, { suspendable: true })
      const journal = kept(parked.suspended!.journal)
      const done = await live.runJs.run(code, { resume: { journal, answer: { value: {} } } })
      expect(done).toMatchObject({ success: true, result: 1 })
      expect(tick).toBe(1) // the tool was not called again
      // A program whose path comes from somewhere the journal does not hold (its own source changed).
      const outside = await live.runJs.run(code.replace("'/n-' + k", "'/m-' + k"), { resume: { journal, answer: { value: {} } } })
      expect(outside).toMatchObject({ success: false, error: { name: 'ReplayDivergedError' } })
      expect(await live.vfs.exists('/m-1.txt')).toBe(false)
      expect(tick).toBe(1)
      runJs.close()
      live.runJs.close()
      void vfs
    })

    it('with the archive on, a program resumed by the same runner archives itself again and does not diverge', async () => {
      const h = await setup()
      const vfs = await openVfs({ store: h.store(), namespace: 'suspend', scope: `archive-${n++}` })
      const runJs = createRunJs({
        vfs,
        tools: { ask_user: askTool },
        ...(h.engine ? { engine: h.engine } : {}),
        ...(h.executor ? { executor: h.executor } : {}),
      })
      const code = `await vfs.write('/w/a.txt', 'x'); const { answer } = await external_ask_user({ question: 'q' }); return answer`
      const parked = await runJs.run(code, { suspendable: true })
      expect(parked.scriptPath).toBe('/.run_js/run-001.js')
      // The runner's archive is not the program's: its calls are not in the journal.
      const calls = parked.suspended!.journal.calls
      expect(calls.map(c => c.call)).toEqual(['vfs.write', 'external_ask_user']) // the same names in a worker thread
      expect(calls.filter(c => c.args.includes('.run_js'))).toEqual([])
      const v = (await vfs.stat('/w/a.txt')).version
      const done = await runJs.run(code, { resume: { journal: kept(parked.suspended!.journal), answer: { value: { answer: 'yes' } } } })
      expect(done).toMatchObject({ success: true, result: 'yes', scriptPath: '/.run_js/run-002.js' })
      expect((await vfs.stat('/w/a.txt')).version).toBe(v)
      runJs.close()
    })

    it('the journal is bounded: past maxCalls the program cannot ask, and says so', async () => {
      const h = await setup()
      const { runJs } = await host(h, h.store(), `bound-${n++}`)
      const r = await runJs.run(
        `for (let i = 0; i < 20; i++) await vfs.exists('/x'); try { await external_ask_user({ question: 'q' }) } catch (e) { return e.name + ': ' + e.message }`,
        { suspendable: { maxCalls: 10 } },
      )
      expect(r.success).toBe(true)
      expect(r.result).toMatch(
        /^SuspendError: this call waits for a person, but the program made too many host calls before it \(more than 10 calls/,
      )
      runJs.close()
    })

    it('the journal is bounded by bytes too: past maxBytes the program cannot ask, its calls still run, the run is not suspended', async () => {
      const h = await setup()
      const { vfs, runJs } = await host(h, h.store(), `bytes-${n++}`)
      const r = await runJs.run(
        `await vfs.write('/big.txt', 'x'.repeat(4000)); const back = await vfs.read('/big.txt')
         try { await external_ask_user({ question: 'q' }) } catch (e) { return back.length + ' ' + e.name + ': ' + e.message }`,
        { suspendable: { maxBytes: 1000 } },
      )
      expect(r.suspended).toBeUndefined()
      expect(r.success).toBe(true)
      expect(r.result).toMatch(
        /^4000 SuspendError: this call waits for a person, but the program made too many host calls before it \(more than \d+ calls or 1000 bytes/,
      )
      expect((await vfs.readFile('/big.txt', 'utf8')).length).toBe(4000)
      runJs.close()
    })

    it('writes in flight when the program asks finish and are journaled, so the resume does not redo them', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `flight-${n++}`
      const first = await host(h, store, scope)
      const code = `const [, , a] = await Promise.all([vfs.write('/p.txt', 'p'), vfs.write('/q.txt', 'q'), external_ask_user({ question: 'q' })]); return a`
      const parked = await first.runJs.run(code, { suspendable: true })
      expect(parked.suspended).toBeDefined()
      const versions = [(await first.vfs.stat('/p.txt')).version, (await first.vfs.stat('/q.txt')).version]
      const second = await host(h, store, scope)
      const done = await second.runJs.run(code, { resume: { journal: kept(parked.suspended!.journal), answer: { value: 'fine' } } })
      expect(done.error).toBeUndefined()
      expect(done).toMatchObject({ success: true, result: 'fine' })
      expect([(await second.vfs.stat('/p.txt')).version, (await second.vfs.stat('/q.txt')).version]).toEqual(versions)
      first.runJs.close()
      second.runJs.close()
    })
  })
}

export type { Vfs }
