import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVfs, withActor, type HistoryEntry, type VersionedVfs, type VfsChange, type VfsStore } from '../../src/index.js'
import type { StoreHarness } from './store-suite.js'
import { textTree } from './samples.js'

/**
 * History, diff, revert, branches and retention on a real store: every store with the history
 * capability passes this suite in the runtime it is for.
 */
export function describeHistory(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`history: ${name}`, () => {
    let h: StoreHarness
    let n = 0
    const ns = 'history'
    const fresh = () => `h-${Date.now().toString(36)}-${++n}`
    const open = (store: VfsStore, scope: string) => openVfs({ store, namespace: ns, scope, autoRefresh: false })
    const files = textTree

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      await h?.cleanup?.()
    })

    it('records every change with its actor, and notifies each commit with its changes', async () => {
      const vfs = await open(h.store, fresh())
      const seen: VfsChange[] = []
      vfs.onChange(c => seen.push(c))
      const run = withActor(vfs, { kind: 'execution', id: 'e1' })
      await run.writeFile('/a.txt', 'one')
      await vfs.writeFile('/a.txt', 'two')
      await run.rename('/a.txt', '/b.txt')
      const history = await vfs.history()
      expect(history.map(e => e.changes.map(c => [c.op, c.path, c.actor]))).toEqual([
        [['put', '/a.txt', { kind: 'execution', id: 'e1' }]],
        [['put', '/a.txt', undefined]],
        [
          ['delete', '/a.txt', { kind: 'execution', id: 'e1' }],
          ['put', '/b.txt', { kind: 'execution', id: 'e1' }],
        ],
      ])
      const commits = seen.filter((c): c is Extract<VfsChange, { type: 'commit' }> => c.type === 'commit')
      expect(commits.map(c => c.changes.map(x => x.path))).toEqual([['/a.txt'], ['/a.txt'], ['/a.txt', '/b.txt']])
      const second = commits[1].changes[0]
      expect(second).toMatchObject({
        op: 'put',
        kind: 'file',
        versionBefore: history[0].version,
        versionAfter: history[1].version,
        size: 3,
        mediaType: 'text/plain',
      })
      expect((await vfs.history({ path: '/b.txt' })).length).toBe(1)
      expect((await vfs.history({ after: history[1].version })).length).toBe(1)
    })

    it('rebuilds every file at every recorded version, after reopening too', async () => {
      const scope = fresh()
      const vfs = await open(h.store, scope)
      const states: Array<[number, Record<string, string>]> = []
      const record = async () => states.push([vfs.version, await files(vfs)])
      await vfs.writeFile('/d/x.txt', 'x1')
      await record()
      await vfs.writeFile('/d/y.txt', 'same')
      await vfs.writeFile('/z.txt', 'same')
      await record()
      await vfs.writeFile('/d/x.txt', 'x2')
      await vfs.deleteFile('/z.txt')
      await record()
      await vfs.rmdir('/d', { recursive: true })
      await record()
      const again = await open(h.store, scope)
      for (const [version, expected] of states) {
        expect(await files(await again.at(version))).toEqual(expected)
        for (const [p, text] of Object.entries(expected)) if (text !== '<dir>') expect(await again.readAt(p, version, 'utf8')).toBe(text)
      }
    })

    it('diffs two versions: added, changed, moved, deleted, with line patches', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/keep.md', 'a\nb\nc\n')
      await vfs.writeFile('/move.txt', 'moving')
      await vfs.writeFile('/gone.txt', 'bye')
      const from = vfs.version
      await vfs.writeFile('/keep.md', 'a\nB\nc\n')
      await vfs.rename('/move.txt', '/moved.txt')
      await vfs.deleteFile('/gone.txt')
      await vfs.writeFile('/new.bin', new Uint8Array([0xff, 0xfe, 0]))
      const d = await vfs.diff(from)
      expect(d.entries.map(e => [e.path, e.status, e.from])).toEqual([
        ['/gone.txt', 'deleted', undefined],
        ['/keep.md', 'changed', undefined],
        ['/moved.txt', 'moved', '/move.txt'],
        ['/new.bin', 'added', undefined],
      ])
      const keep = d.entries.find(e => e.path === '/keep.md')!
      expect([keep.added, keep.removed]).toEqual([1, 1])
      expect(keep.patch).toContain('-b\n+B')
      expect(d.entries.find(e => e.path === '/new.bin')).toMatchObject({ binary: true, sizeAfter: 3 })
    })

    it('reverts an actor’s changes as one commit; redo is the revert of the revert; a later edit conflicts and nothing is written', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/base.txt', 'base')
      const start = vfs.version
      const run = withActor(vfs, 'run-1')
      await run.writeFile('/base.txt', 'changed by run')
      await run.writeFile('/new/file.txt', 'new')
      const byRun = (a: unknown) => a === 'run-1'
      const undone = await vfs.revert({ after: start, actor: byRun })
      expect(undone.ok).toBe(true)
      expect(await files(vfs)).toEqual({ '/base.txt': 'base' })
      if (!undone.ok) return
      const redone = await vfs.revert({ changes: undone.changes })
      expect(redone.ok).toBe(true)
      if (!redone.ok) return
      expect(await files(vfs)).toEqual({ '/base.txt': 'changed by run', '/new': '<dir>', '/new/file.txt': 'new' })
      await vfs.writeFile('/new/file.txt', 'edited later')
      const before = await files(vfs)
      const version = vfs.version
      const refused = await vfs.revert({ changes: redone.changes })
      expect(refused.ok).toBe(false)
      if (!refused.ok) expect(refused.conflicts.map(c => c.path)).toEqual(['/new/file.txt'])
      expect(await files(vfs)).toEqual(before)
      expect(vfs.version).toBe(version)
    })

    it('branches: O(1) copy-on-write, reads its own writes, pinned to its base version, commits as one group commit', async () => {
      const scope = fresh()
      const vfs = await open(h.store, scope)
      await vfs.writeFile('/a.txt', 'a')
      await vfs.writeFile('/b.txt', 'b')
      const at = vfs.version
      const branch = await vfs.branch({ name: 'try-1' })
      await vfs.writeFile('/c.txt', 'base moved on')
      expect(await files(branch)).toEqual({ '/a.txt': 'a', '/b.txt': 'b' })
      await branch.writeFile('/a.txt', 'a from branch')
      await branch.deleteFile('/b.txt')
      await branch.writeFile('/dir/new.txt', 'new')
      expect(await files(branch)).toEqual({ '/a.txt': 'a from branch', '/dir': '<dir>', '/dir/new.txt': 'new' })
      expect(await files(vfs)).toEqual({ '/a.txt': 'a', '/b.txt': 'b', '/c.txt': 'base moved on' })
      expect((await branch.diffBase()).entries.map(e => [e.path, e.status])).toEqual([
        ['/a.txt', 'changed'],
        ['/b.txt', 'deleted'],
        ['/dir', 'added'],
        ['/dir/new.txt', 'added'],
      ])
      expect((await vfs.branches()).map(b => [b.name, b.baseVersion])).toEqual([['try-1', at]])
      // Reopened after a "restart": the same branch, by name.
      const again = await (await open(h.store, scope)).openBranch('try-1')
      expect(await files(again)).toEqual(await files(branch))
      const landed = await branch.commit()
      expect(landed.ok).toBe(true)
      if (landed.ok) expect(new Set(landed.changes.map(c => c.versionAfter))).toEqual(new Set([landed.version]))
      expect(await files(vfs)).toEqual({ '/a.txt': 'a from branch', '/c.txt': 'base moved on', '/dir': '<dir>', '/dir/new.txt': 'new' })
      expect(await vfs.branches()).toEqual([])
    })

    it('a branch commit over a base that changed the same file conflicts and writes nothing', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/f.txt', 'v1')
      const branch = await vfs.branch()
      await branch.writeFile('/f.txt', 'branch')
      await branch.writeFile('/other.txt', 'other')
      await vfs.writeFile('/f.txt', 'base')
      const version = vfs.version
      const r = await branch.commit()
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.conflicts.map(c => c.path)).toEqual(['/f.txt'])
      expect(await files(vfs)).toEqual({ '/f.txt': 'base' })
      expect(vfs.version).toBe(version)
      await branch.discard()
      expect(await vfs.branches()).toEqual([])
    })

    it('a branch at a past version equals the workspace as it was then; branches of branches work', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/s.txt', 'step 1')
      const v1 = vfs.version
      const then = await files(vfs)
      await vfs.writeFile('/s.txt', 'step 2')
      await vfs.writeFile('/t.txt', 'later')
      const fork = await vfs.branch({ at: v1, name: 'fork' })
      expect(await files(fork)).toEqual(then)
      await fork.writeFile('/s.txt', 'other attempt')
      const sub = await fork.branch({ name: 'sub' })
      await sub.writeFile('/sub.txt', 'deeper')
      expect(await files(sub)).toEqual({ '/s.txt': 'other attempt', '/sub.txt': 'deeper' })
      expect((await sub.commit()).ok).toBe(true)
      expect(await files(fork)).toEqual({ '/s.txt': 'other attempt', '/sub.txt': 'deeper' })
      expect(await files(vfs)).toEqual({ '/s.txt': 'step 2', '/t.txt': 'later' })
    })

    it('a branch commit that replaces a directory with a file conflicts on what the base added below it since (history fuzz seed 124)', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/d/x', 'old')
      const branch = await vfs.branch()
      await branch.rmdir('/d', { recursive: true })
      await branch.writeFile('/d', 'now a file')
      await vfs.writeFile('/d/y', 'added since')
      const version = vfs.version
      const r = await branch.commit()
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.conflicts.map(c => c.path)).toEqual(['/d/y'])
      expect(await files(vfs)).toEqual({ '/d': '<dir>', '/d/x': 'old', '/d/y': 'added since' })
      expect(vfs.version).toBe(version)
      // A stale instance of the base is stopped by the store: the directory must still hold only what it saw.
      const stale = await open(h.store, vfs.scope)
      const late = await stale.branch()
      await late.rmdir('/d', { recursive: true })
      await late.writeFile('/d', 'now a file')
      await vfs.writeFile('/d/z', 'added after the load')
      expect((await late.commit()).ok).toBe(false)
      expect(await files(await open(h.store, vfs.scope))).toEqual({
        '/d': '<dir>',
        '/d/x': 'old',
        '/d/y': 'added since',
        '/d/z': 'added after the load',
      })
    })

    it('a branch that removes a base file and then makes a directory there rebuilds the removal (history fuzz seed 11)', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/c', 'base file')
      const fork = await vfs.branch({ name: 'whiteout' })
      await fork.rename('/c', '/b')
      const renamed = fork.version
      // The directory replaces the branch's whiteout of /c: before it, /c did not exist in the branch.
      await fork.mkdir('/c/a')
      expect(await files(await fork.at(renamed))).toEqual({ '/b': 'base file' })
      expect((await (await fork.at(renamed)).readdir('/')).sort()).toEqual(['b'])
      expect((await fork.readdir('/')).sort()).toEqual(['b', 'c'])
    })

    it('gc keeps what the policy and live branches need, and drops the rest', async () => {
      const vfs = await open(h.store, fresh())
      for (let i = 1; i <= 6; i++) await vfs.writeFile('/f.txt', `v${i}`)
      const versions = (await vfs.history()).map(e => e.version)
      const branch = await vfs.branch({ at: versions[1] })
      const r = await vfs.gc({ keepVersions: 2 })
      expect(r.horizon).toBe(versions[1])
      expect(await vfs.readAt('/f.txt', versions[1], 'utf8')).toBe('v2')
      await expect(vfs.readAt('/f.txt', versions[0], 'utf8')).rejects.toMatchObject({ code: 'EINVAL' })
      await branch.discard()
      const r2 = await vfs.gc({ keepVersions: 2 })
      expect(r2.horizon).toBe(versions[5] - 2)
      expect(await vfs.readAt('/f.txt', versions[3], 'utf8')).toBe('v4')
      expect(r.removedChanges + r2.removedChanges).toBeGreaterThan(0)
    })

    it('reports each put’s content hash when history is read, though the write path stores none', async () => {
      const vfs = await open(h.store, fresh())
      await vfs.writeFile('/a.txt', 'one')
      await vfs.writeFile('/b.txt', 'bee')
      await vfs.writeFile('/a.txt', 'two')
      await vfs.rename('/b.txt', '/d/c.txt')
      // Nothing on the write path hashes what it writes: the rows hold no hashAfter.
      const rows = await h.store.history!.changes(ns, vfs.scope)
      expect(rows.filter(c => c.hashAfter !== undefined)).toEqual([])
      const pending = vfs.writeFile('/a.txt', 'three') // in flight while history is read
      const expectHashes = async (v: VersionedVfs, entries: HistoryEntry[]) => {
        const puts = entries.flatMap(e => e.changes.filter(c => c.op === 'put' && c.kind === 'file'))
        expect(puts.length).toBeGreaterThan(0)
        for (const c of puts) expect(c.hashAfter, `${c.path}@${c.versionAfter}`).toBe(await sha256(await v.readAt(c.path, c.versionAfter)))
      }
      const all = await vfs.history()
      await expectHashes(vfs, all)
      await expectHashes(vfs, await vfs.history({ upTo: all[0].version })) // the next change lies past the bound
      await expectHashes(vfs, await vfs.history({ path: '/d/' }))
      await pending
      await expectHashes(vfs, await vfs.history({ after: all[1].version }))
      const branch = await vfs.branch()
      await branch.writeFile('/d/c.txt', 'sea')
      await expectHashes(branch, await branch.history())
      // Many puts whose next change lies past the bound: looked up with one read, not one per path.
      await Promise.all(Array.from({ length: 12 }, (_, i) => vfs.writeFile(`/m/${i}.txt`, `first ${i}`)))
      const many = vfs.version
      await Promise.all(Array.from({ length: 12 }, (_, i) => vfs.writeFile(`/m/${i}.txt`, `second ${i}`)))
      const bounded = await vfs.history({ after: many - 1, upTo: many })
      expect(bounded[0].changes.filter(c => c.kind === 'file')).toHaveLength(12)
      await expectHashes(vfs, bounded)
    })

    it('stores identical before-images once', async () => {
      const vfs = await open(h.store, fresh())
      const same = 'x'.repeat(10_000)
      for (let i = 0; i < 5; i++) await vfs.writeFile(`/f${i}.txt`, same)
      for (let i = 0; i < 5; i++) await vfs.writeFile(`/f${i}.txt`, 'small')
      const usage = await h.store.history!.usage(ns, vfs.scope)
      expect(usage.blobs).toBe(1)
      expect(usage.bytes).toBeLessThan(2 * same.length)
    })
  })
}

/** SHA-256 (hex) by Web Crypto, the same in every runtime the suite runs in. */
async function sha256(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>))
  return [...digest].map(b => b.toString(16).padStart(2, '0')).join('')
}
