import { expect, it } from 'vitest'
import { SessionApiError, SseParser } from '../../src/client/index.js'

it('parses SSE in any chunking: ids, events, multi-line data, comments, CRLF split across chunks', () => {
  const text =
    ': hello\r\nid: 1\r\nevent: status\r\ndata: {"a":1}\r\n\r\nid: 2\ndata: x\ndata: y\n\n: heartbeat 2\n\nevent: delta\ndata: {}\r\r'
  const whole = new SseParser(1000).push(text)
  expect(whole).toEqual([
    { id: '1', event: 'status', data: '{"a":1}' },
    { id: '2', event: 'message', data: 'x\ny' },
    { id: '2', event: 'delta', data: '{}' },
  ])
  for (let size = 1; size < 8; size++) {
    const parser = new SseParser(1000)
    const got = []
    for (let i = 0; i < text.length; i += size) got.push(...parser.push(text.slice(i, i + size)))
    expect(got).toEqual(whole)
  }
})

it('an endless line or a huge event is a clear error, not a client that grows without bound', () => {
  const parser = new SseParser(1024)
  const line = () => {
    for (let i = 0; i < 100; i++) parser.push('x'.repeat(100))
  }
  expect(line).toThrow(SessionApiError)
  expect(line).toThrow(/larger than 1024 characters/)
  const many = new SseParser(1024)
  const event = () => {
    for (let i = 0; i < 100; i++) many.push(`data: ${'y'.repeat(50)}\n`)
  }
  expect(event).toThrow(/maxEventBytes/)
  // Comments and complete events of any number do not accumulate.
  const heartbeats = new SseParser(64)
  for (let i = 0; i < 10_000; i++) heartbeats.push(': heartbeat\n\nid: 1\ndata: {}\n\n')
})
