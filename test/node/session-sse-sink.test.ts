import { describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { EventLog } from '../../src/session/records/event-log.js'
import { activeStreams, SseSink, sseBytes, writeWindow } from '../../src/session/http/sse-batch.js'
import { LogTail, type TailEvent } from '../../src/session/records/log-tail.js'
import { observeBatches } from '../../src/session/records/observe.js'
import type { SessionEvent } from '../../src/session/types.js'

/** Reads a sink's body to the end: the chunks as the runtime got them. */
async function chunksOf(sink: SseSink): Promise<string[]> {
  const out: string[] = []
  const decoder = new TextDecoder()
  const reader = sink.body.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(decoder.decode(r.value))
  return out
}

const tailEvent = (seq: number): TailEvent => {
  const event = { type: 'status', status: 'running', seq, at: 0 } as unknown as SessionEvent
  return { event, json: JSON.stringify(event) }
}

describe('SSE fan-out: one serialisation per batch, few writes per stream', () => {
  it('observers of one tail get the very batch array the tail handed out, and share its bytes', async () => {
    const store = memoryStore()
    let wake: (() => void) | undefined
    const log = new EventLog(store, 'ns', 's1', () => wake?.())
    const tail = new LogTail(
      {
        read: (after, limit) => log.readLines(after, limit),
        last: () => log.lastSeq(),
        watch: w => ((wake = w), () => (wake = undefined)),
      },
      60_000,
    )
    const source = { read: (after: number, limit: number) => log.readLines(after, limit), subscribe: tail.subscribe.bind(tail) }
    const stop = new AbortController()
    const seen: TailEvent[][][] = [[], []]
    const observers = seen.map(async into => {
      for await (const b of observeBatches(source, { signal: stop.signal, heartbeatMs: 0 })) if (Array.isArray(b)) into.push(b)
    })
    while (tail.listeners < 2) await new Promise(r => setTimeout(r, 5))
    for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 5 }, () => log.append({ type: 'status', status: 'running' })))
    while (seen.some(s => s.flat().length < 15)) await new Promise(r => setTimeout(r, 5))
    stop.abort()
    await Promise.all(observers)
    expect(seen[0].flat().map(e => e.event.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1))
    expect(seen[1].flat().map(e => e.event.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1))
    // The same arrays (the tail's batches), so their SSE bytes are made once.
    expect(seen[0].length).toBe(seen[1].length)
    seen[0].forEach((batch, i) => {
      expect(batch).toBe(seen[1][i])
      expect(sseBytes(batch)).toBe(sseBytes(seen[1][i]))
    })
    expect(new TextDecoder().decode(sseBytes(seen[0][0]))).toMatch(/^id: 1\nevent: status\ndata: \{.*\}\n\n/)
  })

  it('a sink sends the first write at once, coalesces what follows within coalesceMs into one chunk, in order, then ends', async () => {
    const sink = new SseSink({ coalesceMs: 200 })
    const read = chunksOf(sink)
    await sink.write(sseBytes([tailEvent(1)]))
    await new Promise(r => setTimeout(r, 50))
    for (let seq = 2; seq <= 6; seq++) await sink.write(sseBytes([tailEvent(seq)]))
    sink.close()
    const chunks = await read
    expect(chunks).toHaveLength(2)
    const ids = chunks.map(c => [...c.matchAll(/^id: (\d+)$/gm)].map(m => Number(m[1])))
    expect(ids).toEqual([[1], [2, 3, 4, 5, 6]])
  })

  it("the streams that wrote within the last second share the process's write budget: their windows widen with their number", async () => {
    expect(writeWindow(20, 10, 4000)).toBe(20)
    expect(writeWindow(20, 200, 4000)).toBe(50)
    expect(writeWindow(20, 1000, 4000)).toBe(250)
    const before = activeStreams()
    const sinks = Array.from({ length: 3 }, () => new SseSink())
    const readers = sinks.map(s => s.body.getReader())
    for (const s of sinks) await s.write(sseBytes([tailEvent(1)]))
    for (const r of readers) expect((await r.read()).done).toBe(false)
    expect(activeStreams()).toBe(before + 3)
    await readers[0].cancel()
    sinks[1].close()
    expect((await readers[1].read()).done).toBe(true)
    expect(activeStreams()).toBe(before + 1)
    await readers[2].cancel()
    // A budget of one write a second: the second write waits for the widened window (≥ 1 s), so
    // what follows it 50 ms later (past coalesceMs) still leaves with it, as one chunk.
    const sink = new SseSink({ writesPerSecond: 1 })
    const reader = sink.body.getReader()
    const chunks: string[] = []
    await sink.write(sseBytes([tailEvent(1)]))
    chunks.push(new TextDecoder().decode((await reader.read()).value))
    await sink.write(sseBytes([tailEvent(2)]))
    // The runtime reads at once (as it does): within 20 ms a window of coalesceMs would have sent 2 alone.
    const next = reader.read()
    await new Promise(r => setTimeout(r, 50))
    await sink.write(sseBytes([tailEvent(3)]))
    sink.close()
    chunks.push(new TextDecoder().decode((await next).value))
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(new TextDecoder().decode(r.value))
    const ids = chunks.map(c => [...c.matchAll(/^id: (\d+)$/gm)].map(m => Number(m[1])))
    expect(ids).toEqual([[1], [2, 3]])
  })

  it('a cancelled body (the client went away) tells its owner and takes no more bytes', async () => {
    let cancelled = 0
    const sink = new SseSink({ onCancel: () => cancelled++ })
    const reader = sink.body.getReader()
    await sink.write(sseBytes([tailEvent(1)]))
    expect((await reader.read()).done).toBe(false)
    await reader.cancel()
    expect(cancelled).toBe(1)
    expect(sink.cancelled).toBe(true)
    await sink.write(sseBytes([tailEvent(2)]))
  })
})
