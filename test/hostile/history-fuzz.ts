import { isVfsError, openVfs, type VersionedVfs, type Vfs, type VfsStore } from '../../src/index.js'
import { mulberry32 } from '../../fixtures/script-appendix/generator.js'
import { applyToModel, describe, DIR, diff, randomOps, run, sameTree, treeOf, type Model } from './fuzz.js'

/**
 * The two-writer fuzz (fuzz.ts) with history: besides random operations on two instances of one
 * scope, it makes branches (at the current or a past recorded version), writes in them and commits
 * them, and reverts random commits. A model holds the tree at every recorded version. It checks:
 * - 0 wrong rebuilds: the workspace at every recorded version (`at(v)`) is the model's state then;
 * - a branch at version V reads exactly the model's state at V;
 * - 0 silent lost updates: a branch commit or a revert that succeeds changed only paths that still
 *   held what it expected (else it must conflict), and afterwards the store equals the model;
 * - a refused revert or branch commit writes nothing.
 */
export interface HistoryFuzzOptions {
  store: VfsStore
  seed: number
  steps: number
  namespace?: string
}

export interface HistoryFuzzReport {
  commits: number
  branchCommits: number
  branchConflicts: number
  reverts: number
  revertConflicts: number
  rebuilds: number
}

export async function runHistoryFuzz(options: HistoryFuzzOptions): Promise<HistoryFuzzReport> {
  const { store, seed, steps } = options
  const namespace = options.namespace ?? 'history-fuzz'
  const scope = `hfuzz-${seed}-${Date.now().toString(36)}`
  const random = mulberry32(seed)
  const randomOp = randomOps(random)
  const open = () => openVfs({ store, namespace, scope, autoRefresh: false })
  const writers = [await open(), await open()]
  let model: Model = new Map()
  const states = new Map<number, Model>([[0, new Map()]])
  const report: HistoryFuzzReport = { commits: 0, branchCommits: 0, branchConflicts: 0, reverts: 0, revertConflicts: 0, rebuilds: 0 }
  const fail = (step: number, what: string): never => {
    throw new Error(`history fuzz seed ${seed}, step ${step}: ${what}`)
  }
  const stored = async () => {
    const fresh = await open()
    const tree = await treeOf(fresh)
    await fresh.close()
    return tree
  }
  let latest = 0
  // Only a commit records a state: a write that committed nothing (a no-op) leaves the version as it was.
  const record = (version: number) => {
    if (version <= latest) return
    latest = version
    states.set(version, new Map(model))
  }
  const checkStore = async (step: number, what: string) => {
    const now = await stored()
    if (!sameTree(now, model)) fail(step, `${what}: the store differs from the model:\n${diff(now, model)}`)
  }

  for (let step = 1; step <= steps; step++) {
    const vfs = writers[Math.floor(random() * 2)]
    const r = random()
    if (r < 0.1) await branchRound(step, vfs)
    else if (r < 0.18) await revertRound(step, vfs)
    else {
      if (random() < 0.15) await vfs.refresh()
      const group = Array.from({ length: random() < 0.2 ? 2 : 1 }, randomOp)
      for (const op of group) if (op.kind === 'write') delete op.expect
      const results = await Promise.allSettled(group.map(op => run(vfs, op)))
      let any = false
      results.forEach((res, i) => {
        if (res.status === 'fulfilled') {
          applyToModel(model, group[i])
          any = true
        } else if (!isVfsError(res.reason)) fail(step, `${describe(group[i])} threw ${String(res.reason)}`)
      })
      if (any) {
        report.commits++
        record(vfs.version)
      }
    }
  }
  await checkStore(steps, 'at the end')
  // Every recorded version rebuilds exactly.
  const reader = await open()
  for (const [version, state] of states) {
    const past = await treeOf(await reader.at(version))
    report.rebuilds++
    if (!sameTree(past, state)) fail(steps, `version ${version} rebuilt wrong:\n${diff(past, state)}`)
  }
  for (const vfs of [...writers, reader]) await vfs.close()
  return report

  async function branchRound(step: number, vfs: VersionedVfs): Promise<void> {
    await vfs.refresh()
    const versions = [...states.keys()].filter(v => v <= vfs.version)
    const at = random() < 0.5 ? vfs.version : versions[Math.floor(random() * versions.length)]
    const start = states.get(at) ?? (await treeOf(await vfs.at(at)))
    const branch = await vfs.branch({ at })
    const seen = await treeOf(branch)
    if (!sameTree(seen, start)) fail(step, `a branch at ${at} differs from the workspace then:\n${diff(seen, start)}`)
    const mine = new Map(start)
    for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
      const op = randomOp()
      if (op.kind === 'write') delete op.expect
      try {
        await run(branch, op)
        applyToModel(mine, op)
      } catch (error) {
        if (!isVfsError(error)) fail(step, `in a branch, ${describe(op)} threw ${String(error)}`)
      }
    }
    if (!sameTree(await treeOf(branch), mine)) fail(step, 'the branch does not read its own writes')
    // The other writer may land first: the commit then conflicts on what it touched.
    if (random() < 0.5) await otherWrites(step, writers[1 - writers.indexOf(vfs)])
    const changed = [...new Set([...start.keys(), ...mine.keys()])].filter(p => start.get(p) !== mine.get(p))
    const result = await branch.commit()
    if (!result.ok) {
      report.branchConflicts++
      await branch.discard()
      await checkStore(step, 'after a refused branch commit')
      return
    }
    report.branchCommits++
    for (const p of changed)
      if (model.get(p) !== start.get(p) && model.get(p) !== mine.get(p))
        fail(step, `branch commit overwrote ${p}, changed since the branch was made`)
    applyChanges(changed, mine)
    record(result.version)
    await checkStore(step, 'after a branch commit')
  }

  async function revertRound(step: number, vfs: VersionedVfs): Promise<void> {
    await vfs.refresh()
    const history = await vfs.history()
    if (history.length === 0) return
    const entry = history[Math.floor(random() * history.length)]
    const before = [...states.keys()].filter(v => v < entry.version).reduce((a, b) => Math.max(a, b), 0)
    const was = states.get(before) ?? new Map()
    const after = states.get(entry.version)
    const result = await vfs.revert({ changes: entry.changes })
    if (!result.ok) {
      report.revertConflicts++
      await checkStore(step, 'after a refused revert')
      return
    }
    report.reverts++
    const paths = entry.changes.map(c => c.path)
    if (after)
      for (const p of paths) if (model.get(p) !== after.get(p)) fail(step, `revert of ${entry.version} overwrote ${p}, changed since`)
    applyChanges(paths, was)
    record(result.version)
    await checkStore(step, `after reverting version ${entry.version}`)
  }

  async function otherWrites(step: number, vfs: Vfs & { version: number }): Promise<void> {
    const op = randomOp()
    if (op.kind === 'write') delete op.expect
    await vfs.refresh()
    try {
      await run(vfs, op)
      applyToModel(model, op)
      report.commits++
      record(vfs.version)
    } catch (error) {
      if (!isVfsError(error)) fail(step, `${describe(op)} threw ${String(error)}`)
    }
  }

  /** The model after `paths` take their values in `source` (missing parents appear as directories). */
  function applyChanges(paths: string[], source: Model): void {
    const next = new Map(model)
    for (const p of paths) {
      const v = source.get(p)
      if (v === undefined) next.delete(p)
      else next.set(p, v)
    }
    for (const p of [...next.keys()])
      for (let i = p.indexOf('/', 1); i > 0; i = p.indexOf('/', i + 1)) if (!next.has(p.slice(0, i))) next.set(p.slice(0, i), DIR)
    model = next
  }
}
