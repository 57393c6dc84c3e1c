// agent-vfs/bash on one store, in whatever runtime runs this file (Node, workerd, Chromium): the
// "How it is shown" of issue 31 and the rules of the view, on a real store.
import { describe, expect, it } from 'vitest'
import { openVfs, scopeRun, type VersionedVfs, type VfsStore } from 'agent-vfs'
import { createBash } from 'agent-vfs/bash'

export interface BashSuiteOptions {
  /** A store whose scopes outlive the workspace instance (reopen reads what was committed). */
  store: () => Promise<VfsStore> | VfsStore
  /** Freezes Date.now for the body (as deployed Workers do during CPU work); default: real clock. */
  frozenClock?: boolean
}

let scopes = 0
const fresh = () => `bash-${Date.now().toString(36)}-${++scopes}`

export function bashSuite(name: string, options: BashSuiteOptions) {
  describe(`agent-vfs/bash on ${name}`, () => {
    const open = async (scope: string) => (await openVfs({ store: await options.store(), namespace: 'bash', scope })) as VersionedVfs

    it('prints 2 for two lines, and the file is in the store after a reopen, written by bash', async () => {
      const scope = fresh()
      const vfs = await open(scope)
      const bash = createBash({ vfs })
      const r = await bash.exec('mkdir -p /work/out && printf "a\\nb\\n" > /work/out/x.txt && wc -l < /work/out/x.txt')
      expect(r).toEqual({ stdout: '2\n', stderr: '', exitCode: 0 })
      await vfs.close()
      const again = await open(scope)
      expect(await again.readFile('/work/out/x.txt', 'utf8')).toBe('a\nb\n')
      const history = await again.history({ path: '/work/out/x.txt' })
      expect(history.flatMap(h => h.changes.map(c => c.actor))).toEqual(['bash'])
      await again.close()
    })

    it('lands one command line as one commit', async () => {
      const vfs = await open(fresh())
      const commits: number[] = []
      vfs.onChange(c => void (c.type === 'commit' && commits.push(c.version)))
      const r = await createBash({ vfs }).exec(
        'for i in 1 2 3 4 5; do echo $i > /work/f$i.txt; done; mkdir /work/d; cp /work/f1.txt /work/d/',
      )
      expect(r.exitCode).toBe(0)
      expect(commits).toHaveLength(1)
      expect((await vfs.readdir('/work')).sort()).toEqual(['d', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt'])
    })

    it('writing into /context of a run fails with a non-zero exit code and changes nothing', async () => {
      const vfs = await open(fresh())
      const run = scopeRun(vfs, { runId: 'r1' })
      await run.seed('/context/a.md', 'seeded\n')
      const before = vfs.version
      const bash = createBash({ vfs: run })
      const r = await bash.exec('echo kept > /work/a.txt; echo no > /context/b.md; echo x >> /context/a.md')
      expect(r.exitCode).not.toBe(0)
      expect(r.stderr).toMatch(/ermission denied|EACCES/)
      expect(await run.exists('/work/a.txt')).toBe(false)
      expect(await run.exists('/context/b.md')).toBe(false)
      expect(await run.readFile('/context/a.md', 'utf8')).toBe('seeded\n')
      expect(vfs.version).toBe(before)
    })

    it('.. never leaves the run, and other runs do not exist for it', async () => {
      const vfs = await open(fresh())
      const other = scopeRun(vfs, { runId: 'r2' })
      await other.writeFile('/work/secret.txt', 'other run\n')
      const bash = createBash({ vfs: scopeRun(vfs, { runId: 'r1' }) })
      const read = await bash.exec('cat /work/../../runs/r2/work/secret.txt')
      expect(read.exitCode).not.toBe(0)
      expect(read.stdout).toBe('')
      const write = await bash.exec('cd /work && echo x > ../../runs/r2/work/secret.txt')
      expect(write.exitCode).not.toBe(0)
      expect(await other.readFile('/work/secret.txt', 'utf8')).toBe('other run\n')
      expect((await bash.exec('cd /work/../.. && pwd && ls')).stdout).toBe('/\ncontext\noutputs\nskills\nstate\nwork\n')
    })

    it('a while-true loop ends at the deadline and writes nothing', async () => {
      const vfs = await open(fresh())
      const bash = createBash({ vfs, limits: { maxLoopIterations: 1e9, maxCommands: 1e9 } })
      const started = Date.now()
      const r = await bash.exec('echo x > /work/before.txt; while true; do :; done', { deadline: Date.now() + 300 })
      expect(r.exitCode).not.toBe(0)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(await vfs.exists('/work/before.txt')).toBe(false)
    })

    it('a loop ends at its iteration limit even when the clock stands still', async () => {
      const vfs = await open(fresh())
      const bash = createBash({ vfs, limits: { maxLoopIterations: 1000 } })
      const now = Date.now
      const frozen = now()
      Date.now = () => frozen
      let r
      try {
        r = await bash.exec('echo x > /work/a.txt; while true; do :; done')
      } finally {
        Date.now = now
      }
      expect(r.exitCode).not.toBe(0)
      expect(r.stderr).toMatch(/too many iterations/)
      expect(await vfs.exists('/work/a.txt')).toBe(false)
    })

    it('reads, searches and edits the way a model would', async () => {
      const vfs = await open(fresh())
      await vfs.writeFile('/context/ep1.md', 'alpha\nbeta WORD\n')
      await vfs.writeFile('/context/ep2.md', 'WORD gamma\n')
      const bash = createBash({ vfs })
      expect((await bash.exec('grep -rn WORD /context | wc -l')).stdout.trim()).toBe('2')
      expect((await bash.exec('find /context -name "*.md" | sort')).stdout).toBe('/context/ep1.md\n/context/ep2.md\n')
      const edit = await bash.exec(
        "sed -i 's/alpha/ALPHA/' /context/ep1.md && head -1 /context/ep1.md && echo '{\"a\":[1,2]}' | jq '.a | length'",
      )
      expect(edit).toMatchObject({ stdout: 'ALPHA\n2\n', exitCode: 0 })
      expect(await vfs.readFile('/context/ep1.md', 'utf8')).toBe('ALPHA\nbeta WORD\n')
      const mv = await bash.exec('mkdir -p /work/x && mv /context/ep2.md /work/x/ && rm -r /context && ls -R /work')
      expect(mv.exitCode).toBe(0)
      expect(await vfs.exists('/context')).toBe(false)
      expect(await vfs.readFile('/work/x/ep2.md', 'utf8')).toBe('WORD gamma\n')
    })
  })
}
