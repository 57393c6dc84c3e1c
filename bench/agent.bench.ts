/**
 * The agent runtime on the script-appendix example (60 generated episodes, scripted model, real
 * run_js on QuickJS), each figure measured against a baseline from the same run:
 *
 * - `agent.persistence.overhead`: the example end to end (seed the input, first execution with its
 *   rejection and correction, the follow-up) on PGlite in a temp dir vs the memory store; wall time
 *   in ms, median of interleaved rounds, each round in a fresh session (target ratio ≤ 1.5). The
 *   PGlite database is created and migrated before timing. A diagnostic pass afterwards prints
 *   where the time goes (store commits and loads, their count and size) and the same on an
 *   in-memory PGlite.
 * - `agent.resume.redone`: the first execution interrupted at every tool call (abort, as
 *   `--interrupt-after N` does) and killed at three points inside the work (a workspace that throws
 *   from one call on, as a crashed process); each time the workspace is reopened and resumed. Ours:
 *   tool calls made after the resume for plan steps that were already completed at the
 *   interruption, summed over all interruptions. Baseline: what restarting from scratch would
 *   repeat, i.e. the tool calls made before each interruption, summed (target 0 redone). Every
 *   resumed run must finish with outputs identical to the uninterrupted run, or the bench fails.
 * - `agent.followup.calls`: tool calls of the follow-up execution vs the first execution (target
 *   ratio ≤ 0.3).
 *
 * Findings (2 shared, busy cores; November 2026): the overhead ratio measured 1.30–1.56 across runs,
 * around the 1.5 target. The gap is store commits, not the runner: the example makes 97 commits
 * (291 statements, 3 per commit), ~2–5 ms each on PGlite vs ~0.02 ms on memory, and the rest of
 * the run costs the same on both. 61 of the 97 are the input seeding (seedInput awaits one
 * `seed()` per file); issued together they group-commit into one (37 commits in all, seeding
 * ~14 ms instead of ~80–140 ms). The two executions themselves make 36 commits (one per
 * checkpoint plus execution records). PGlite in a dir vs in memory differs little.
 *
 * Run: `node --import tsx bench/agent.bench.ts [filter]`; AGENT_BENCH_ROUNDS changes the 7 timed rounds (after 2 warm-up rounds).
 */
import { PGlite } from '@electric-sql/pglite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRunJs, memoryStore, openVfs, postgresStore, scopeRun, type RunVfs, type Vfs, type VfsStore } from '../src/index.js'
import { resumeTask, runTask, scriptedModel, type ExecutionEvent, type Plan, type PolicyRule, type TaskResult } from '../src/agent/index.js'
import { generateEpisodes } from '../fixtures/script-appendix/generator.js'
import { appendixModel } from '../fixtures/script-appendix/scripted.js'
import { ALLOW_RUN_JS, APPENDIX_INSTRUCTIONS, ASK_OUTSIDE_WORK, appendixContract, seedInput } from '../fixtures/script-appendix/task.js'
import { runAppendixStages } from '../fixtures/script-appendix/stages.js'
import { Killed, killable } from '../test/agent/kill-switch.js'
import { compareMedian, Results, size, smoke, wanted } from './harness.js'

const results = new Results('agent.json')
const { files } = generateEpisodes({ count: size(60, 4) })
// The job's policy (fixtures/script-appendix/job.ts): file tools ask before writing outside /work;
// run_js programs, which write /outputs, are allowed as a whole.
const policy: PolicyRule[] = [ALLOW_RUN_JS, ASK_OUTSIDE_WORK]
const runJs = (vfs: RunVfs) => createRunJs({ vfs })
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
let n = 0
const freshScope = () => `bench-${process.pid}-${++n}`

async function session(store: VfsStore, scope = freshScope()): Promise<{ base: Vfs; run: RunVfs }> {
  const base = await openVfs({ store, namespace: 'script-appendix', scope, autoRefresh: false })
  return { base, run: scopeRun(base, { runId: 'main' }) }
}

/** The main job's two stages on one session, as `npm start` runs them (without printing). */
async function endToEnd(
  store: VfsStore,
  options: { batchedSeed?: boolean; phases?: number[] } = {},
): Promise<{ first: TaskResult; follow: TaskResult }> {
  const t0 = performance.now()
  const { base, run } = await session(store)
  // The example seeds one awaited file at a time (61 commits); batchedSeed issues them together (group commit), for the diagnostic.
  if (options.batchedSeed) await Promise.all(Object.entries(files).map(([path, text]) => run.seed(`/context/${path}`, text)))
  else await seedInput(run, files)
  options.phases?.push(performance.now() - t0)
  const { first, follow } = await runAppendixStages(run, runJs)
  await base.close()
  return { first, follow }
}

/** A store that counts and times its calls, for the diagnostic pass. */
function metered(store: VfsStore) {
  const m = { commits: 0, commitMs: 0, ops: 0, bytes: 0, loads: 0, loadMs: 0 }
  const wrapped: VfsStore = {
    ...store,
    kind: store.kind,
    load: async (ns, scope) => {
      const t = performance.now()
      try {
        return await store.load(ns, scope)
      } finally {
        m.loads++
        m.loadMs += performance.now() - t
      }
    },
    commit: async (ns, scope, ops) => {
      const t = performance.now()
      try {
        return await store.commit(ns, scope, ops)
      } finally {
        m.commits++
        m.commitMs += performance.now() - t
        m.ops += ops.length
        for (const op of ops) if (op.op === 'put') m.bytes += op.data.byteLength
      }
    },
    deleteScope: (ns, scope) => store.deleteScope(ns, scope),
    listScopes: ns => store.listScopes(ns),
  }
  return { store: wrapped, m }
}

/** PGlite behind postgresStore; `statements` counts the SQL statements the store sends (BEGIN/COMMIT are PGlite's own). */
async function pglite(dir?: string): Promise<{ store: VfsStore; close(): Promise<void>; statements: { n: number } }> {
  const db = dir ? await PGlite.create(join(dir, 'pglite')) : await PGlite.create()
  const statements = { n: 0 }
  const counted = (q: { query: PGlite['query'] }) => ({
    query: (text: string, params?: unknown[]) => (statements.n++, q.query(text, params)),
  })
  const client = {
    query: counted(db).query,
    transaction: <T>(fn: (tx: unknown) => Promise<T>) => db.transaction(tx => fn(counted(tx))),
  }
  const store = postgresStore({ client })
  await store.migrate()
  return { store, close: () => db.close(), statements }
}

const f1 = (x: number) => Math.round(x * 10) / 10

async function persistence(): Promise<void> {
  if (!wanted('agent.persistence.overhead')) return
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-'))
  const pg = await pglite(dir)
  const mem = memoryStore()
  try {
    const rounds = Number(process.env.AGENT_BENCH_ROUNDS ?? 7)
    const r = await compareMedian(
      () => endToEnd(pg.store),
      () => endToEnd(mem),
      { rounds, warmup: 2, setup: gc },
    )
    results.add({
      name: 'agent.persistence.overhead',
      unit: 'ms',
      better: 'lower',
      ...r,
      target: 'ratio <= 1.5',
      baselineLabel: 'the same 60-episode example end to end (seed, first execution, follow-up) on memoryStore',
    })

    // Diagnostic, untimed by the harness: where the PGlite time goes. Medians of 3 runs each.
    if (smoke) return
    const memPg = await pglite()
    try {
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
      const cases = [
        ['PGlite (temp dir)', pg.store, pg.statements, false],
        ['PGlite (in memory)', memPg.store, memPg.statements, false],
        ['memoryStore', mem, undefined, false],
        ['PGlite (temp dir), seeding batched', pg.store, pg.statements, true],
        ['memoryStore, seeding batched', mem, undefined, true],
      ] as const
      for (const [label, store, statements, batchedSeed] of cases) {
        const totals: number[] = []
        const seeds: number[] = []
        const commitMs: number[] = []
        let last = { commits: 0, statements: 0 }
        for (let i = 0; i < 3; i++) {
          gc()
          const { store: s, m } = metered(store)
          const before = statements?.n ?? 0
          const t = performance.now()
          await endToEnd(s, { batchedSeed, phases: seeds })
          totals.push(performance.now() - t)
          commitMs.push(m.commitMs)
          last = { commits: m.commits, statements: (statements?.n ?? 0) - before }
        }
        console.log(
          `  ${label.padEnd(36)} total ${f1(median(totals))} ms, seeding ${f1(median(seeds))} ms; ${last.commits} commits` +
            (statements ? ` (${last.statements} statements, ${f1(last.statements / last.commits)} per commit)` : '') +
            ` taking ${f1(median(commitMs))} ms (${f1(median(commitMs) / last.commits)} ms each)`,
        )
      }
    } finally {
      await memPg.close()
    }
  } finally {
    await pg.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function outputsOf(run: RunVfs): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const p of await run.glob('/outputs/**')) out[p] = await run.readFile(p, 'utf8')
  return out
}

const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(a) === JSON.stringify(b)

/**
 * One interruption: run until `interrupt` stops it, reopen the session from the store, resume.
 * Completed at the stop: steps whose completion the caller saw checkpointed (a `checkpoint` event
 * after the `plan-updated` that completed them) or that /state/plan.json records as completed.
 */
async function interruptedRun(
  store: VfsStore,
  expected: Record<string, string>,
  interrupt: { afterCalls: number } | { kill: (m: string, a: unknown[]) => boolean },
): Promise<{ before: number; callsBefore: number; after: number; redone: number; completedAtStop: string[] }> {
  const scope = freshScope()
  const { run, base } = await session(store, scope)
  await seedInput(run, files)
  const controller = new AbortController()
  const vfs = 'kill' in interrupt ? killable(run, interrupt.kill) : run
  let calls = 0
  let before = 0 // successful tool calls before the stop: the work a restart from scratch would repeat
  let pendingPlan: Plan | undefined
  let confirmed: Plan | undefined
  // After a kill the simulated process is dead: calls it still "makes" (each failing) do not count.
  const dead = () => 'kill' in interrupt && (vfs as { killed?: boolean }).killed === true
  const onEvent = (e: ExecutionEvent) => {
    if (dead()) return
    if (e.type === 'tool-result' && e.ok) before++
    if (e.type === 'plan-updated') pendingPlan = e.plan
    if (e.type === 'checkpoint') confirmed = pendingPlan
    if (e.type === 'tool-call' && ++calls >= ('afterCalls' in interrupt ? interrupt.afterCalls : Infinity) && !controller.signal.aborted)
      controller.abort()
  }
  try {
    const r = await runTask({
      vfs,
      model: scriptedModel(appendixModel()),
      instructions: APPENDIX_INSTRUCTIONS,
      contract: appendixContract,
      policy,
      runJs,
      onEvent,
      signal: controller.signal,
    })
    if (r.status !== 'interrupted') throw new Error(`expected an interruption, got ${r.status}`)
  } catch (error) {
    if (!(error instanceof Killed)) throw error
  }
  await base.close().catch(() => {})

  // A new process: reopen the session from the store and resume from the last checkpoint.
  const again = await session(store, scope)
  const stored = (await again.run.exists('/state/plan.json'))
    ? (JSON.parse(await again.run.readFile('/state/plan.json', 'utf8')) as Plan)
    : undefined
  const completedAtStop = [
    ...new Set([...(confirmed?.steps ?? []), ...(stored?.steps ?? [])].filter(s => s.status === 'completed').map(s => s.id)),
  ]
  const model = appendixModel()
  let redone = 0
  let after = 0
  const r = await resumeTask({
    vfs: again.run,
    contract: appendixContract,
    policy,
    runJs,
    onEvent: e => {
      if (e.type === 'tool-call') after++
    },
    model: scriptedModel(v => {
      const turn = model(v)
      const step = v.state?.nextStep?.id
      const work = turn.toolCalls?.filter(c => c.toolName !== 'update_plan' && c.toolName !== 'submit_result').length ?? 0
      if (step && completedAtStop.includes(step)) redone += work
      return turn
    }),
  })
  if (r.status !== 'completed') throw new Error(`resume after ${before} calls ended ${r.status}: ${r.error?.message}`)
  if (!same(await outputsOf(again.run), expected))
    throw new Error(`resume after ${before} calls: outputs differ from the uninterrupted run`)
  await again.base.close()
  return { before, callsBefore: calls, after, redone, completedAtStop }
}

async function resume(): Promise<void> {
  if (!wanted('agent.resume.redone')) return
  const store = memoryStore()
  const clean = await session(store)
  await seedInput(clean.run, files)
  const reference = await runTask({
    vfs: clean.run,
    model: scriptedModel(appendixModel()),
    instructions: APPENDIX_INSTRUCTIONS,
    contract: appendixContract,
    policy,
    runJs,
  })
  const expected = await outputsOf(clean.run)
  let extractWrites = 0
  const kills: Array<[string, (m: string, a: unknown[]) => boolean]> = [
    ['inside run_js (writing assets.json)', (m, a) => m === 'writeFile' && a[0] === '/outputs/assets.json'],
    [
      'between run_js and the checkpoint',
      (m, a) => m === 'writeFile' && a[0] === '/state/plan.json' && String(a[1]).includes('"revision": 4'),
    ],
    ['inside the correction step', (m, a) => m === 'writeFile' && a[0] === '/work/extract.json' && ++extractWrites === 2],
  ]
  const runs: Array<{
    label: string
    before: number
    callsBefore: number
    after: number
    redone: number
    completedAtStop: string[]
  }> = []
  for (let k = 1; k < reference.toolCalls; k++)
    runs.push({ label: `abort after ${k} calls`, ...(await interruptedRun(store, expected, { afterCalls: k })) })
  for (const [label, kill] of kills) runs.push({ label: `killed ${label}`, ...(await interruptedRun(store, expected, { kill })) })
  for (const r of runs)
    console.log(
      `  ${r.label.padEnd(44)} ok calls before ${String(r.before).padStart(2)}, calls after resume ${String(r.after).padStart(2)}, completed then [${r.completedAtStop.join(' ')}], their calls redone ${r.redone}; calls beyond the uninterrupted run ${r.callsBefore + r.after - reference.toolCalls}`,
    )
  const ours = runs.reduce((s, r) => s + r.redone, 0)
  const baseline = runs.reduce((s, r) => s + r.before, 0)
  results.add({
    name: 'agent.resume.redone',
    unit: 'tool calls redone',
    better: 'lower',
    ours,
    baseline,
    target: '0 redone (ratio 0)',
    baselineLabel: `restart from scratch: successful tool calls made before each of ${runs.length} interruptions, summed (uninterrupted run: ${reference.toolCalls} calls; interrupted after each call 1..${reference.toolCalls - 1} and killed at 3 points)`,
  })
}

async function followUp(): Promise<void> {
  if (!wanted('agent.followup.calls')) return
  const { first, follow } = await endToEnd(memoryStore())
  results.add({
    name: 'agent.followup.calls',
    unit: 'tool calls',
    better: 'lower',
    ours: follow.toolCalls,
    baseline: first.toolCalls,
    target: 'ratio <= 0.3',
    baselineLabel: 'tool calls of the first execution on the same session (7 update_plan, 7 run_js, 2 submit_result)',
  })
}

await persistence()
await resume()
await followUp()
