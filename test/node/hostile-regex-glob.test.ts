import { expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, scopeRun } from '../../src/index.js'
import { describeHostileRegexGlob } from '../hostile/regex-glob.js'

describeHostileRegexGlob('node', () => memoryStore())

// The guest reproduction: a program's regex and glob run in linear time on the host.
it('a run_js guest cannot freeze the host with a regex or a glob', async () => {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'hostile', scope: 'guest' })
  const run = scopeRun(vfs, { runId: 'g' })
  await run.writeFile('/work/a.txt', 'a'.repeat(28) + '!\n' + 'a'.repeat(20_000) + '!\n')
  await run.writeFile(`/work/${'a'.repeat(200)}`, 'x')
  const runJs = createRunJs({ vfs: run, limits: { timeMs: 5_000 } })
  try {
    const started = Date.now()
    const r = await runJs.run(`
      const g = await vfs.grep('(a+)+$', { regex: true })
      const h = await vfs.grep('(a+){9}$|((a|a))*$|\\\\w*\\\\w*\\\\w*\\\\w*\\\\w*!', { regex: true })
      const paths = await vfs.glob('/work/*a*a*a*a*a*b')
      let refused = ''
      try { await vfs.grep('(a)\\\\1', { regex: true }) } catch (e) { refused = String(e.message) }
      return { g: g.matches.length, h: h.matches.length, paths, refused }`)
    expect(r.success, JSON.stringify(r.error)).toBe(true)
    expect(r.result).toMatchObject({ g: 0, h: expect.any(Number), paths: [], refused: expect.stringMatching(/RE2/) })
    expect(Date.now() - started).toBeLessThan(4_000)
  } finally {
    await runJs.close()
  }
})
