import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../demo/src/api/types.js'
import { applyFileChanges } from '../../demo/src/ui/file-changes.js'

const change = (seq: number, version: number, changes: Array<[string, 'added' | 'changed' | 'deleted', number]>): SessionEvent =>
  ({
    type: 'files-changed',
    seq,
    at: 1000 + seq,
    version,
    by: { kind: 'api' },
    changes: changes.map(([path, op, size]) => ({ path, op, version, size, mimeType: 'text/plain' })),
  }) as SessionEvent

describe("the demo's file list from files-changed events", () => {
  it('adds, changes and deletes; a replayed or older change changes nothing', () => {
    const listed = [{ path: '/context/a.txt', size: 1, mtime: 1, version: 3, mimeType: 'text/plain' }]
    const events = [
      change(5, 2, [['/context/a.txt', 'deleted', 0]]), // older than the list: ignored
      change(6, 4, [
        ['/work/b.txt', 'added', 2],
        ['/context/a.txt', 'changed', 9],
      ]),
      change(7, 5, [['/work/b.txt', 'deleted', 0]]),
    ]
    const once = applyFileChanges(listed, events)!
    expect(once.map(f => [f.path, f.size, f.version])).toEqual([['/context/a.txt', 9, 4]])
    expect(applyFileChanges(once, events)).toEqual(once)
    const other = [{ type: 'status', status: 'idle', seq: 8, at: 0 } as SessionEvent]
    expect(applyFileChanges(once, other)).toBe(once)
    expect(applyFileChanges(undefined, events)).toBeUndefined()
  })
})
