import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, scopeRun, type Vfs } from '../../src/index.js'

/** The same workspace behind a plain delegating object: it has no synchronous reader. */
function withoutSyncReader(vfs: Vfs): Vfs {
  const out = {} as Record<string, unknown>
  for (const key of [
    'readFile',
    'writeFile',
    'appendFile',
    'deleteFile',
    'mkdir',
    'rmdir',
    'readdir',
    'stat',
    'exists',
    'rename',
    'copy',
    'glob',
    'grep',
    'flush',
    'refresh',
    'close',
    'usage',
    'onChange',
  ]) {
    out[key] = (vfs as unknown as Record<string, (...a: unknown[]) => unknown>)[key].bind(vfs)
  }
  return Object.assign(out, { namespace: vfs.namespace, scope: vfs.scope }) as unknown as Vfs
}

/** The same workspace, counting readFile calls; everything else (the synchronous reader too) passes through. */
function countingReads(vfs: Vfs): { vfs: Vfs; readFiles: () => number } {
  let n = 0
  const spied = new Proxy(vfs, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      if (key === 'readFile') return (...args: unknown[]) => (n++, (value as (...a: unknown[]) => unknown).apply(target, args))
      return (value as (...a: unknown[]) => unknown).bind(target)
    },
  })
  return { vfs: spied, readFiles: () => n }
}

const program = `
  let n = 0
  for (let i = 0; i < 3000; i++) n += (await vfs.read('/work/a.txt')).length
  const errors = []
  for (const p of ['/work/missing.txt', '/etc/passwd', '/work']) {
    try { await vfs.read(p) } catch (e) { errors.push([e.name, e.code, e.message]) }
  }
  const both = await Promise.all([vfs.read('/work/a.txt'), vfs.exists('/work/a.txt'), vfs.read('/context/c.md')])
  return { n, errors, both }`

describe('vfs.read answered synchronously from memory', () => {
  it('gives the same results and errors as the asynchronous bridge, with logical paths', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'rn', scope: 's' })
    const run = scopeRun(vfs, { runId: 'r1' })
    await run.writeFile('/work/a.txt', 'héllo\u0000x')
    await run.seed('/context/c.md', 'ctx')
    const counted = countingReads(vfs)
    const fast = await createRunJs({ vfs: scopeRun(counted.vfs, { runId: 'r1' }), archiveDir: false }).run(program)
    // The fast path was taken: not one read went through the promise API.
    expect(counted.readFiles()).toBe(0)
    const slow = await createRunJs({ vfs: scopeRun(withoutSyncReader(counted.vfs), { runId: 'r1' }), archiveDir: false }).run(program)
    expect(counted.readFiles()).toBeGreaterThanOrEqual(3000)
    expect(fast.success, JSON.stringify(fast.error)).toBe(true)
    expect(fast.result).toEqual(slow.result)
    const { n, errors, both } = fast.result as { n: number; errors: string[][]; both: unknown[] }
    expect(n).toBe(3000 * 7)
    expect(errors.map(([name, code]) => [name, code])).toEqual([
      ['VfsError', 'ENOENT'],
      ['VfsError', 'EACCES'],
      ['VfsError', 'EISDIR'],
    ])
    for (const [, , message] of errors) expect(message).not.toContain('/runs/')
    expect(both).toEqual(['héllo\u0000x', true, 'ctx'])
  })
})
