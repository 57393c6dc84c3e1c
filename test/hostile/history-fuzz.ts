import { isVfsError, openVfs, type VersionedVfs, type Vfs, type VfsBranch, type VfsStore } from '../../src/index.js'
import { mulberry32 } from '../../fixtures/script-appendix/generator.js'
import { applyToModel, describe, DIR, diff, randomOps, run, sameTree, treeOf, type Model } from './fuzz.js'
import { isLinesFile, linesFile, mergeOracle, replaceLines } from './merge-model.js'

/**
 * The two-writer fuzz (fuzz.ts) with history: besides random operations on two instances of one
 * scope, it makes branches (at the current or a past recorded version), writes in them and commits
 * them, and reverts random commits. It also forks: a named branch at a past version that lives on
 * while the base moves, reopened by name from a fresh instance (what a session fork's host does),
 * written to, and later committed or kept to the end. A model holds the tree at every recorded
 * version of the base and of each fork. It checks:
 * - 0 wrong rebuilds: the workspace at every recorded version (`at(v)`) is the model's state then,
 *   and so is every live fork at each of its own versions and at its base version;
 * - a branch or fork at version V reads exactly the model's state at V, and a reopened fork its own writes;
 * - 0 silent lost updates: a branch commit or a revert that succeeds changed only paths that still
 *   held what it expected (else it must conflict), and afterwards the store equals the model;
 * - a refused revert or branch commit writes nothing;
 * - three-way merges: a merge round edits lines of one file in a branch and in the workspace; the
 *   commit's result equals the model's own line-merge oracle (merge-model.ts, not node-diff3), or
 *   conflicts with the overlapping hunks exactly when the oracle says the edits overlap.
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
  forks: number
  forkReopens: number
  forkCommits: number
  /** Merge rounds whose commit merged a file both sides changed, and those that conflicted on overlapping edits. */
  merges: number
  mergeConflicts: number
}

/** A fork's model: the base's state at `baseVersion`, then its own tree at each of its versions. */
interface ForkModel {
  name: string
  baseVersion: number
  start: Model
  tree: Model
  states: Map<number, Model>
  latest: number
  /** Committed (a commit discards the branch). */
  landed: boolean
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
  const forks: ForkModel[] = []
  const report = emptyReport()
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
  /** Unique line tokens of merge rounds. */
  let tokens = 0
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
    else if (r < 0.24) await forkRound(step, vfs)
    else if (r < 0.34) await mergeRound(step, vfs)
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
  for (const fork of forks) await checkForkAtEnd(steps, reader, fork)
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
    if (!(await land(step, branch, start, mine))) await branch.discard()
  }

  /**
   * Commits a branch that started from `start` and now holds `mine`; resolves to whether it landed.
   * `merged`: the oracle's merge of a file both sides changed (null: its edits overlap).
   */
  async function land(step: number, branch: VfsBranch, start: Model, mine: Model, merged?: [string, string | null]): Promise<boolean> {
    const changed = [...new Set([...start.keys(), ...mine.keys()])].filter(p => start.get(p) !== mine.get(p))
    const result = await branch.commit()
    if (!result.ok) {
      report.branchConflicts++
      if (merged && merged[1] !== null) fail(step, `edits that do not overlap conflicted: ${JSON.stringify(result.conflicts)}`)
      if (merged) {
        const conflict = result.conflicts.find(c => c.path === merged[0])
        if (conflict?.merge?.reason !== 'overlap' || !conflict.merge.hunks?.length)
          fail(step, `overlapping edits of ${merged[0]} conflicted without their hunks: ${JSON.stringify(result.conflicts)}`)
        report.mergeConflicts++
      }
      await checkStore(step, 'after a refused branch commit')
      return false
    }
    report.branchCommits++
    if (merged && merged[1] === null) fail(step, `overlapping edits of ${merged[0]} landed`)
    const target = new Map(mine)
    for (const p of changed)
      if (model.get(p) !== start.get(p) && model.get(p) !== mine.get(p)) {
        if (merged?.[0] !== p) fail(step, `branch commit overwrote ${p}, changed since the branch was made`)
        target.set(p, merged![1]!)
        report.merges++
      }
    applyChanges(changed, target)
    record(result.version)
    await checkStore(step, 'after a branch commit')
    return true
  }

  /** Makes a fork at a past version, or reopens one by name from a fresh instance and writes to it or commits it. */
  async function forkRound(step: number, vfs: VersionedVfs): Promise<void> {
    const live = forks.filter(f => !f.landed)
    if (live.length === 0 || random() < 0.4) {
      await vfs.refresh()
      const versions = [...states.keys()].filter(v => v <= vfs.version)
      const at = versions[Math.floor(random() * versions.length)]
      const start = states.get(at)!
      const fork: ForkModel = {
        name: `fork-${forks.length + 1}`,
        baseVersion: at,
        start,
        tree: new Map(start),
        states: new Map(),
        latest: at,
        landed: false,
      }
      const branch = await vfs.branch({ name: fork.name, at })
      forks.push(fork)
      report.forks++
      const seen = await treeOf(branch)
      if (!sameTree(seen, start)) fail(step, `a fork at ${at} differs from the workspace then:\n${diff(seen, start)}`)
      await forkWrites(step, branch, fork)
      await branch.close()
      return
    }
    const fork = live[Math.floor(random() * live.length)]
    const host = await open()
    const branch = await host.openBranch(fork.name)
    report.forkReopens++
    if (branch.baseVersion !== fork.baseVersion)
      fail(step, `${fork.name} reopened at base version ${branch.baseVersion}, made at ${fork.baseVersion}`)
    const seen = await treeOf(branch)
    if (!sameTree(seen, fork.tree)) fail(step, `${fork.name} reopened differs from its writes:\n${diff(seen, fork.tree)}`)
    if (random() < 0.3) {
      if (await land(step, branch, fork.start, fork.tree)) {
        fork.landed = true
        report.forkCommits++
      } else await branch.close()
    } else {
      await forkWrites(step, branch, fork)
      await branch.close()
    }
    await host.close()
  }

  async function forkWrites(step: number, branch: VfsBranch, fork: ForkModel): Promise<void> {
    for (let i = 0; i < 1 + Math.floor(random() * 3); i++) {
      const op = randomOp()
      if (op.kind === 'write') delete op.expect
      try {
        await run(branch, op)
        applyToModel(fork.tree, op)
      } catch (error) {
        if (!isVfsError(error)) fail(step, `in ${fork.name}, ${describe(op)} threw ${String(error)}`)
      }
      if (branch.version > fork.latest) {
        fork.latest = branch.version
        fork.states.set(branch.version, new Map(fork.tree))
      }
    }
  }

  /** A live fork, reopened, rebuilds its base version and each of its own; a committed one is gone. */
  async function checkForkAtEnd(step: number, reader: VersionedVfs, fork: ForkModel): Promise<void> {
    const opened = await reader.openBranch(fork.name).catch((error: unknown) => error)
    if (fork.landed) {
      if (!isVfsError(opened, 'ENOENT')) fail(step, `${fork.name} was committed, yet openBranch gave ${String(opened)}`)
      return
    }
    if (isVfsError(opened)) return fail(step, `${fork.name} cannot be reopened: ${String(opened)}`)
    const branch = opened as VfsBranch
    const seen = await treeOf(branch)
    if (!sameTree(seen, fork.tree)) fail(step, `${fork.name} at the end differs from its writes:\n${diff(seen, fork.tree)}`)
    for (const [version, state] of [[fork.baseVersion, fork.start] as const, ...fork.states]) {
      const past = await treeOf(await branch.at(version))
      report.rebuilds++
      if (!sameTree(past, state)) fail(step, `${fork.name} at version ${version} rebuilt wrong:\n${diff(past, state)}`)
    }
    await branch.close()
  }

  /**
   * Edits lines of one file of unique lines in a branch and, meanwhile, in the workspace (through
   * the other writer), sometimes the same line the same way, then commits the branch: the result
   * must be the oracle's merge, or a conflict exactly when the oracle has the edits overlap.
   */
  async function mergeRound(step: number, vfs: VersionedVfs): Promise<void> {
    await vfs.refresh()
    const path = `/m/${Math.floor(random() * 2)}.txt`
    if (!isLinesFile(model.get(path)) || random() < 0.25) {
      const fresh = linesFile(4 + Math.floor(random() * 16), () => ++tokens)
      try {
        await vfs.writeFile(path, fresh)
      } catch (error) {
        if (!isVfsError(error)) fail(step, `writing ${path} threw ${String(error)}`)
        return
      }
      applyToModel(model, { kind: 'write', path, data: fresh })
      report.commits++
      record(vfs.version)
    }
    const start = new Map(model)
    const base = start.get(path)!
    const lines = base.split('\n').length - 1
    const pickLines = () => new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * lines)))
    const theirEdits = pickLines()
    const ourEdits = pickLines()
    const same = random() < 0.15 ? [...theirEdits][0] : -1
    const token = new Map<number, string>([[same, `m${++tokens}`]])
    const theirs = replaceLines(base, theirEdits, i => token.get(i) ?? `m${++tokens}.t`)
    const ours = replaceLines(base, [...ourEdits, ...(same >= 0 ? [same] : [])], i => token.get(i) ?? `m${++tokens}.o`)
    const branch = await vfs.branch()
    await branch.writeFile(path, theirs)
    const mine = new Map(start).set(path, theirs)
    const other = writers[1 - writers.indexOf(vfs)]
    await other.refresh()
    try {
      await other.writeFile(path, ours)
      applyToModel(model, { kind: 'write', path, data: ours })
      report.commits++
      record(other.version)
    } catch (error) {
      if (!isVfsError(error)) fail(step, `writing ${path} threw ${String(error)}`)
    }
    const now = model.get(path)
    const merged: [string, string | null] | undefined = isLinesFile(now) ? [path, mergeOracle(base, now, theirs)] : undefined
    if (!(await land(step, branch, start, mine, merged))) await branch.discard()
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

/** runHistoryFuzz over seeds 1..`seeds` on one store (or a fresh one per seed), summed; a failure names its seed and step. */
export async function runHistoryFuzzSeeds(options: {
  store: VfsStore | (() => VfsStore)
  seeds: number
  steps: number
  namespace?: string
}): Promise<HistoryFuzzReport> {
  const { store, seeds, steps, namespace } = options
  const totals = emptyReport()
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await runHistoryFuzz({ store: typeof store === 'function' ? store() : store, seed, steps, namespace })
    for (const k of Object.keys(totals) as (keyof HistoryFuzzReport)[]) totals[k] += r[k]
  }
  return totals
}

function emptyReport(): HistoryFuzzReport {
  return {
    commits: 0,
    branchCommits: 0,
    branchConflicts: 0,
    reverts: 0,
    revertConflicts: 0,
    rebuilds: 0,
    forks: 0,
    forkReopens: 0,
    forkCommits: 0,
    merges: 0,
    mergeConflicts: 0,
  }
}
