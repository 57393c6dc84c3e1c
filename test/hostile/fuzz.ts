import { isVfsError, openVfs, type Vfs, type VfsStore } from '../../src/index.js'
import { mulberry32 } from '../../fixtures/script-appendix/generator.js'

/**
 * A fuzz test of the workspace's promises with two writers. Random sequences of operations run on
 * two instances of one scope; a simple model holds what the store must hold (every acknowledged
 * operation applied in commit order). It checks, as it goes:
 * - acknowledged writes are never lost: a freshly opened instance shows exactly the model;
 * - stale batches fail with ECONFLICT and change nothing; a failed operation leaves the model as it was;
 * - no false conflicts: an instance whose view equals the store never gets ECONFLICT;
 * - every failure is a typed VfsError.
 * No vitest in here: the test suite and the bench (bench/fuzz.bench.ts) both drive it.
 */
export interface FuzzOptions {
  store: VfsStore
  seed: number
  steps: number
  /** Open a fresh instance and compare it with the model every this many steps (and at the end). */
  verifyEvery?: number
  namespace?: string
  scope?: string
  /** Instances on the scope (default 2). With 1 the run is a single writer's baseline. */
  writers?: 1 | 2
  /** Receives one line per step (operations and outcomes), for replaying a failure. */
  trace?: (line: string) => void
}

export interface FuzzReport {
  steps: number
  operations: number
  succeeded: number
  conflicts: number
  refused: number
  refreshes: number
  verifications: number
}

export const DIR = '<dir>'
export type Model = Map<string, string>

export type Op =
  | { kind: 'write'; path: string; data: string; expect?: 'current' | 'wrong' }
  | { kind: 'append'; path: string; data: string }
  | { kind: 'mkdir'; path: string }
  | { kind: 'rmdir'; path: string; recursive: boolean }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'copy'; from: string; to: string }
  | { kind: 'delete'; path: string }

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { store, seed, steps, verifyEvery = 50 } = options
  const namespace = options.namespace ?? 'fuzz'
  const scope = options.scope ?? `fuzz-${seed}-${Date.now().toString(36)}`
  const random = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]
  const open = () => openVfs({ store, namespace, scope, autoRefresh: false })
  const instances = options.writers === 1 ? [await open()] : [await open(), await open()]
  const model: Model = new Map()
  const report: FuzzReport = { steps, operations: 0, succeeded: 0, conflicts: 0, refused: 0, refreshes: 0, verifications: 0 }
  const randomOp = randomOps(random)

  const fail = (step: number, what: string): never => {
    throw new Error(`fuzz seed ${seed}, step ${step}: ${what}`)
  }

  for (let step = 1; step <= steps; step++) {
    const vfs = pick(instances)
    if (random() < 0.08) {
      await vfs.refresh()
      report.refreshes++
      options.trace?.(`${step} ${instances.indexOf(vfs) === 0 ? 'A' : 'B'}: refresh`)
    }
    // Usually one operation; sometimes several issued in one tick, so they share a batch.
    const group = Array.from({ length: random() < 0.2 ? 2 + Math.floor(random() * 3) : 1 }, randomOp)
    // A conditional write reads its version with stat() first; within a group, an earlier op may
    // change the file meanwhile and the condition fails on the caller's own doing: keep them alone.
    if (group.length > 1) for (const op of group) if (op.kind === 'write') delete op.expect
    const view = await treeOf(vfs, true)
    const results = await Promise.allSettled(group.map(op => run(vfs, op)))
    // In sync: the instance saw what the store holds, file versions included (a file replaced by
    // the same content under a new version is a real conflict). Only needed when something
    // conflicted; a group is issued in one tick, so it is one batch, and a conflicting batch wrote
    // nothing: the store still holds what it held before the group.
    const conflicted = results.some(r => r.status === 'rejected' && isVfsError(r.reason, 'ECONFLICT'))
    const inSync = conflicted && sameTree(view, await storedTree(true))
    options.trace?.(
      `${step} ${instances.indexOf(vfs) === 0 ? 'A' : 'B'}${inSync ? '' : ' (stale)'}: ${group.map((op, i) => `${describe(op)} → ${results[i].status === 'fulfilled' ? 'ok' : (results[i] as PromiseRejectedResult).reason?.code}`).join(' ; ')}`,
    )
    for (let i = 0; i < group.length; i++) {
      report.operations++
      const r = results[i]
      if (r.status === 'fulfilled') {
        report.succeeded++
        applyToModel(model, group[i])
        continue
      }
      const error = r.reason
      if (!isVfsError(error)) fail(step, `${describe(group[i])} threw a ${String(error)}, not a VfsError`)
      if (error.code === 'ECONFLICT') {
        report.conflicts++
        // A conflict from a wrong expectedVersion is the caller's own; any other, with a view
        // equal to the store, is a false conflict.
        const own = group[i].kind === 'write' && (group[i] as { expect?: string }).expect === 'wrong'
        if (inSync && !own)
          fail(step, `${describe(group[i])} got ECONFLICT although the instance saw exactly what the store holds: ${error.message}`)
      } else {
        report.refused++
      }
    }
    if (step % verifyEvery === 0 || step === steps) {
      const stored = await storedTree(false)
      report.verifications++
      if (!sameTree(stored, model)) fail(step, `the store differs from the model:\n${diff(stored, model)}`)
    }
  }
  for (const vfs of instances) await vfs.close()
  return report

  /** What a freshly opened instance sees: the store's content. */
  async function storedTree(versions: boolean): Promise<Model> {
    const fresh = await open()
    const tree = await treeOf(fresh, versions)
    await fresh.close()
    return tree
  }
}

export async function run(vfs: Vfs, op: Op): Promise<void> {
  switch (op.kind) {
    case 'write': {
      if (op.expect === undefined) return vfs.writeFile(op.path, op.data)
      const current = (await vfs.stat(op.path).catch(() => null))?.version ?? 0
      return vfs.writeFile(op.path, op.data, { expectedVersion: op.expect === 'current' ? current : current + 1000 })
    }
    case 'append':
      return vfs.appendFile(op.path, op.data)
    case 'mkdir':
      return vfs.mkdir(op.path)
    case 'rmdir':
      return vfs.rmdir(op.path, { recursive: op.recursive })
    case 'rename':
      return vfs.rename(op.from, op.to)
    case 'copy':
      return vfs.copy(op.from, op.to)
    case 'delete':
      return vfs.deleteFile(op.path)
  }
}

/** A generator of random operations over few names and shallow paths, so writers collide often. */
export function randomOps(random: () => number): () => Op {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]
  let counter = 0
  // Few names and shallow paths, so the two writers collide often.
  const names = ['a', 'b', 'c']
  const randomPath = () => '/' + Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(names)).join('/')
  const randomOp = (): Op => {
    const r = random()
    const data = `${++counter}`
    if (r < 0.28)
      return {
        kind: 'write',
        path: randomPath(),
        data,
        expect: random() < 0.25 ? 'current' : random() < 0.05 ? 'wrong' : undefined,
      }
    if (r < 0.38) return { kind: 'append', path: randomPath(), data }
    if (r < 0.5) return { kind: 'mkdir', path: randomPath() }
    if (r < 0.62) return { kind: 'rmdir', path: randomPath(), recursive: random() < 0.6 }
    if (r < 0.76) return { kind: 'rename', from: randomPath(), to: randomPath() }
    if (r < 0.86) return { kind: 'copy', from: randomPath(), to: randomPath() }
    return { kind: 'delete', path: randomPath() }
  }
  return randomOp
}

export function describe(op: Op): string {
  return JSON.stringify(op)
}

/** Applies an acknowledged operation to the model, with the workspace's semantics. */
export function applyToModel(model: Model, op: Op): void {
  const ancestors = (path: string) => {
    const out: string[] = []
    for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i))
    return out
  }
  const ensureParents = (path: string) => {
    for (const a of ancestors(path)) if (!model.has(a)) model.set(a, DIR)
  }
  const subtree = (path: string) => [...model.keys()].filter(p => p === path || p.startsWith(path + '/'))
  switch (op.kind) {
    case 'write':
      ensureParents(op.path)
      model.set(op.path, op.data)
      return
    case 'append':
      ensureParents(op.path)
      model.set(op.path, (model.get(op.path) ?? '') + op.data)
      return
    case 'mkdir':
      ensureParents(op.path)
      if (!model.has(op.path)) model.set(op.path, DIR)
      return
    case 'rmdir':
    case 'delete':
      for (const p of subtree(op.path)) model.delete(p)
      return
    case 'rename':
    case 'copy': {
      if (op.from === op.to) return
      const moved = subtree(op.from).map(p => [op.to + p.slice(op.from.length), model.get(p)!] as const)
      if (op.kind === 'rename') for (const p of subtree(op.from)) model.delete(p)
      model.delete(op.to) // a replaced file or empty directory
      ensureParents(op.to)
      for (const [p, v] of moved) model.set(p, v)
    }
  }
}

/** Path → content (`<dir>` for directories), with `@version` appended to files when asked. */
export async function treeOf(vfs: Vfs, versions = false): Promise<Model> {
  const out: Model = new Map()
  for (const p of await vfs.readdir('/', { recursive: true })) {
    const st = await vfs.stat('/' + p)
    out.set('/' + p, st.type === 'file' ? (await vfs.readFile('/' + p, 'utf8')) + (versions ? `@${st.version}` : '') : DIR)
  }
  return out
}

export function sameTree(a: Model, b: Model): boolean {
  if (a.size !== b.size) return false
  for (const [p, v] of a) if (b.get(p) !== v) return false
  return true
}

export function diff(stored: Model, model: Model): string {
  const lines: string[] = []
  for (const p of new Set([...stored.keys(), ...model.keys()])) {
    if (stored.get(p) !== model.get(p)) lines.push(`  ${p}: store ${JSON.stringify(stored.get(p))}, model ${JSON.stringify(model.get(p))}`)
  }
  return lines.sort().join('\n')
}
