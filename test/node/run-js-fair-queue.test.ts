import { describe, expect, it } from 'vitest'
import { RunQueue, type RunQueueSlot } from '../../src/internal.js'

// The fair queue the worker pool shares between tenants: a cap per key, keys take turns.
const far = () => performance.now() + 60_000
const slot = async (q: RunQueue, key: string): Promise<RunQueueSlot> => {
  const s = await q.acquire(far(), undefined, key)
  if ('name' in s) throw new Error(s.message)
  return s
}

describe('RunQueue: fair between keys', () => {
  it('one key cannot hold more than perKey slots, even when it asks first and the rest are free', async () => {
    const q = new RunQueue(4, 100, 'a test slot', 2)
    const held = [await slot(q, 'busy'), await slot(q, 'busy')]
    const third = q.acquire(far(), undefined, 'busy')
    expect(q.waiting).toBe(1)
    // Another key passes the capped one while slots are free.
    const other = await slot(q, 'calm')
    expect(q.active).toBe(3)
    other.release()
    held[0].release()
    expect('release' in (await third)).toBe(true)
  })

  it('keys take turns as slots free up (round-robin), each key in FIFO order', async () => {
    const q = new RunQueue(1, 100, 'a test slot')
    const first = await slot(q, 'a')
    const order: string[] = []
    const waiting = [
      ['a', 1],
      ['a', 2],
      ['a', 3],
      ['b', 1],
      ['c', 1],
      ['b', 2],
    ].map(async ([key, n]) => {
      const s = await slot(q, key as string)
      order.push(`${key}${n}`)
      await new Promise(r => setTimeout(r, 1))
      s.release()
    })
    first.release()
    await Promise.all(waiting)
    expect(order).toEqual(['b1', 'c1', 'a1', 'b2', 'a2', 'a3'])
  })

  it('without keys it is the FIFO queue it was', async () => {
    const q = new RunQueue(1, 100, 'a test slot')
    const first = await slot(q, '')
    const order: number[] = []
    const waiting = [1, 2, 3].map(async n => {
      const s = await q.acquire(far())
      if ('name' in s) throw new Error(s.message)
      order.push(n)
      s.release()
    })
    first.release()
    await Promise.all(waiting)
    expect(order).toEqual([1, 2, 3])
  })
})
