import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, scopeRun, type Vfs } from '../../src/index.js'

/** The same workspace behind a plain delegating object: it has no synchronous reader. */
function withoutSyncReader(vfs: Vfs): Vfs {
  const out = {} as Record<string, unknown>
  for (const key of ['readFile', 'writeFile', 'appendFile', 'deleteFile', 'mkdir', 'rmdir', 'readdir', 'stat', 'exists', 'rename', 'copy', 'glob', 'grep', 'flush', 'refresh', 'close', 'usage', 'onChange']) {
    out[key] = (vfs as unknown as Record<string, (...a: unknown[]) => unknown>)[key].bind(vfs)
  }
  return Object.assign(out, { namespace: vfs.namespace, scope: vfs.scope }) as unknown as Vfs
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
    const fast = await createRunJs({ vfs: run, archiveDir: false }).run(program)
    const slow = await createRunJs({ vfs: scopeRun(withoutSyncReader(vfs), { runId: 'r1' }), archiveDir: false }).run(program)
    expect(fast.success, JSON.stringify(fast.error)).toBe(true)
    expect(fast.result).toEqual(slow.result)
    const { n, errors, both } = fast.result as { n: number; errors: string[][]; both: unknown[] }
    expect(n).toBe(3000 * 7)
    expect(errors.map(([name, code]) => [name, code])).toEqual([['VfsError', 'ENOENT'], ['VfsError', 'EACCES'], ['VfsError', 'EISDIR']])
    for (const [, , message] of errors) expect(message).not.toContain('/runs/')
    expect(both).toEqual(['héllo\u0000x', true, 'ctx'])
  })
})
