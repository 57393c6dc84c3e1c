import { describe, expect, it } from 'vitest'
import { isVfsError, memoryStore, openVfs, scopeRun, type StoreOp, type Vfs, type VfsStore } from '../../src/index.js'

// Deterministic generator of hostile paths: traversal, encodings, unicode look-alikes, NUL,
// backslashes, absolute roots, prefix tricks and very long names, in random combinations.
const pieces = [
  '..',
  '.',
  '...',
  '%2e%2e',
  '%2E%2E%2F',
  '%00',
  '\u0000',
  '\\',
  '..\\..',
  '\u2025',
  '\uFF0E\uFF0E',
  '\u2024\u2024',
  '\uFF0F',
  '\u2215',
  '\u29F8',
  'etc',
  'passwd',
  'runs',
  'r1',
  'r2',
  'r1x',
  'r1-other',
  'work',
  'context',
  'skills',
  'outputs',
  'state',
  'secret.txt',
  'C:',
  'file:',
  '~',
  '$HOME',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u202E',
  '\uFEFF',
  'a'.repeat(256),
  'b'.repeat(300),
  'ok.md',
  '*',
  '**',
  '?',
  '[a]',
  '{a,b}',
  '!',
  'con',
  'nul',
  '.git',
  '..;',
  ';',
  "'",
  '"',
  '\u0085',
  '\u00A0',
  'ü',
  '日本',
]
const separators = ['/', '//', '/./', '\\', '/../', '%2f', '\uFF0F']

function rng(seed: number) {
  let x = seed >>> 0
  return () => (x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32
}

function hostilePaths(count: number): string[] {
  const r = rng(42)
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]
  const out: string[] = []
  while (out.length < count) {
    const n = 1 + Math.floor(r() * 6)
    let p = r() < 0.7 ? '/' : ''
    for (let i = 0; i < n; i++) p += (i ? pick(separators) : '') + pick(pieces)
    if (r() < 0.05) p = p.repeat(40)
    if (r() < 0.3) p = pick(['/work/', '/context/', '/outputs/', '/runs/r1/', '/runs/r2/', '/']) + p
    out.push(p)
  }
  return out
}

/** Records every path the run scope hands to the underlying workspace. */
function recordingVfs(base: Vfs, seen: string[]): Vfs {
  return new Proxy(base, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (
          ['readFile', 'writeFile', 'appendFile', 'deleteFile', 'mkdir', 'rmdir', 'readdir', 'stat', 'exists', 'glob'].includes(
            String(prop),
          )
        )
          seen.push(String(args[0]))
        if (prop === 'rename' || prop === 'copy') seen.push(String(args[0]), String(args[1]))
        if (prop === 'grep') for (const p of (args[1] as { paths?: string[] })?.paths ?? ['<all>']) seen.push(p)
        return value.apply(target, args)
      }
    },
  })
}

describe('run scope against 10,000 hostile paths', () => {
  it('never reads or writes outside the run prefix, and fails only with typed errors', async () => {
    const committed: string[] = []
    const inner = memoryStore()
    const store: VfsStore = {
      ...inner,
      commit: (ns: string, scope: string, ops: StoreOp[]) => {
        for (const op of ops) committed.push(op.path)
        return inner.commit(ns, scope, ops)
      },
    }
    const base = await openVfs({ store, namespace: 'hostile', scope: 's' })
    const outside = {
      '/secret.txt': 'secret',
      '/runs/r2/work/x.md': 'other run',
      '/runs/r1x/work/y.md': 'prefix trick',
      '/runs/r1-other/state/z': 'z',
      '/etc/passwd': 'root:x',
    }
    for (const [p, d] of Object.entries(outside)) await base.writeFile(p, d)
    committed.length = 0
    const seen: string[] = []
    const run = scopeRun(recordingVfs(base, seen), { runId: 'r1' })
    await run.seed('/context/brief.md', 'the brief')
    await run.writeFile('/work/ok.md', 'fine')

    const paths = hostilePaths(10_000)
    const unexpected: string[] = []
    let refused = 0
    const attempt = async (label: string, fn: () => Promise<unknown>) => {
      try {
        await fn()
      } catch (error) {
        if (!isVfsError(error)) unexpected.push(`${label}: ${String(error)}`)
        else refused++
      }
    }
    for (const p of paths) {
      await attempt('readFile', () => run.readFile(p))
      await attempt('stat', () => run.stat(p))
      await attempt('exists', () => run.exists(p))
      await attempt('readdir', () => run.readdir(p, { recursive: true }))
      await attempt('writeFile', () => run.writeFile(p, 'x'))
      await attempt('appendFile', () => run.appendFile(p, 'y'))
      await attempt('mkdir', () => run.mkdir(p))
      await attempt('copy-to', () => run.copy('/work/ok.md', p))
      await attempt('copy-from', () => run.copy(p, '/work/copied'))
      await attempt('rename-from', () => run.rename(p, '/work/renamed'))
      await attempt('glob', () => run.glob(p))
      await attempt('grep', () => run.grep('x', { paths: [p] }))
      await attempt('deleteFile', () => run.deleteFile(p))
      await attempt('rmdir', () => run.rmdir(p, { recursive: true }))
      await attempt('rename-to', async () => {
        await run.writeFile('/work/ok.md', 'fine')
        await run.rename('/work/ok.md', p)
      })
      await attempt('seed', () => run.seed(p, 'seeded'))
    }

    expect(unexpected.slice(0, 5)).toEqual([])
    expect(refused).toBeGreaterThan(50_000)
    const prefix = '/runs/r1/'
    const escapedWrites = committed.filter(p => !p.startsWith(prefix) && p !== '/runs/r1' && p !== '/runs')
    expect(escapedWrites).toEqual([])
    const escapedAccess = seen.filter(p => !(p + '/').startsWith(prefix))
    expect(escapedAccess.slice(0, 5)).toEqual([])
    for (const [p, d] of Object.entries(outside)) expect(await base.readFile(p, 'utf8')).toBe(d)
    expect(await base.readFile('/runs/r1/context/brief.md', 'utf8')).toBe('the brief')
  }, 300_000)
})
