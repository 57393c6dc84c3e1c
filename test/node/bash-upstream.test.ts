// What running just-bash's own tests over WorkspaceFs found (test/bash/upstream/README.md), each
// pinned here on the shell as the product makes it (createBash).
import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, scopeRun } from '../../src/index.js'
import { createBash } from '../../src/bash/index.js'

let n = 0
async function shell(files: Record<string, string> = {}) {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'upstream', scope: `s${++n}` })
  for (const [path, text] of Object.entries(files)) await vfs.writeFile(path, text)
  return { vfs, bash: createBash({ vfs }) }
}

describe('just-bash commands that ask whether two paths are one file', () => {
  it('cp and mv replace an existing file, and refuse a file onto itself', async () => {
    const { vfs, bash } = await shell({ '/work/a': 'new\n', '/work/b': 'old\n', '/work/c': 'moved\n', '/work/d': 'gone\n' })
    const r = await bash.exec('cp /work/a /work/b && mv /work/c /work/d && cat /work/b /work/d')
    expect(r).toMatchObject({ exitCode: 0, stdout: 'new\nmoved\n', stderr: '' })
    expect(await vfs.readFile('/work/d', 'utf8')).toBe('moved\n')
    expect(await vfs.exists('/work/c')).toBe(false)
    const self = await bash.exec('cp /work/a /work/../work/a')
    expect(self.exitCode).not.toBe(0)
    expect(self.stderr).toMatch(/are the same file/)
  })

  it('split writes its pieces', async () => {
    const { vfs, bash } = await shell({ '/work/in.txt': 'a\nb\nc\n' })
    const r = await bash.exec('cd /work && split -l 1 in.txt part. && cat part.aa part.ac')
    expect(r).toMatchObject({ exitCode: 0, stdout: 'a\nc\n' })
    expect(await vfs.readdir('/work')).toEqual(['in.txt', 'part.aa', 'part.ab', 'part.ac'])
  })
})

describe('/dev/null', () => {
  it('discards what a run writes to it and reads empty, and the workspace does not change', async () => {
    const { vfs } = await shell({ '/work/a': 'x\n' })
    const bash = createBash({ vfs: scopeRun(vfs, { runId: 'r1' }) })
    await bash.exec('echo x > /work/a')
    const before = await vfs.readdir('/', { recursive: true })
    const r = await bash.exec(
      'ls /work/nope 2>/dev/null; echo out > /dev/null; echo more >> /dev/null; cat /dev/null | wc -c; grep -f /dev/null /work/a; echo rc=$?; test -e /dev/null && echo there',
    )
    expect(r).toMatchObject({ exitCode: 0, stdout: '0\nrc=1\nthere\n', stderr: '' })
    expect(await vfs.readdir('/', { recursive: true })).toEqual(before)
    expect((await bash.exec('rm /dev/null')).exitCode).not.toBe(0)
  })
})
