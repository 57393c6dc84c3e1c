import { exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { multipartWith, REFUSED_PART_NAMES } from '../session/multipart-names.js'
import { call, configureEdge, createSession, expectJson, token } from './edge-harness.js'

// Limits at the door and multipart names, in workerd: the Worker in front, the object behind it.
const MiB = 1024 * 1024
let ana: string
beforeAll(async () => {
  configureEdge()
  ana = await token('limits-ana')
})

/** `total` bytes as a stream with no Content-Length, or as bytes with one. */
function bodyOf(total: number, prefix: string, streamed: boolean): BodyInit {
  const head = new TextEncoder().encode(prefix)
  if (!streamed) {
    const bytes = new Uint8Array(total).fill(0x61)
    bytes.set(head)
    return bytes
  }
  // A workerd-native stream written from here: the request has no Content-Length.
  const { readable, writable } = new IdentityTransformStream()
  void (async () => {
    const writer = writable.getWriter()
    const chunk = new Uint8Array(64 * 1024).fill(0x61)
    await writer.write(head)
    for (let sent = head.length; sent < total; sent += chunk.length)
      await writer.write(chunk.slice(0, Math.min(chunk.length, total - sent)))
    await writer.close()
  })().catch(() => undefined) // the Worker may stop reading
  return readable
}

function send(
  method: string,
  path: string,
  total: number,
  prefix: string,
  streamed: boolean,
  headers: Record<string, string>,
): Promise<Response> {
  return exports.default.fetch(
    new Request(`https://edge.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ana}`, ...headers },
      body: bodyOf(total, prefix, streamed),
      ...({ duplex: 'half' } as object),
    }),
  )
}

async function expectTooLarge(res: Promise<Response>, limit: number): Promise<void> {
  const body = await expectJson<{ error: { code: string; message: string } }>(res, 413)
  expect(body.error.code).toBe('too-large')
  expect(body.error.message).toContain(String(limit))
}

describe('limits at the door (workerd)', () => {
  for (const streamed of [false, true]) {
    const how = streamed ? 'streamed, no Content-Length' : 'with Content-Length'
    it(`oversized PUT …/file, multipart upload and POST /messages, ${how}: 413 { error } naming the limit`, async () => {
      const s = await createSession(ana)
      await expectTooLarge(
        send('PUT', `/sessions/${s.id}/file?path=/context/big.bin`, 21 * MiB, '', streamed, {
          'content-type': 'application/octet-stream',
        }),
        20 * MiB,
      )
      const boundary = 'b0undary'
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n\r\n`
      await expectTooLarge(
        send('POST', `/sessions/${s.id}/files`, 21 * MiB, part, streamed, {
          'content-type': `multipart/form-data; boundary=${boundary}`,
        }),
        20 * MiB,
      )
      await expectTooLarge(
        send('POST', `/sessions/${s.id}/messages`, 8 * MiB, '{"text":"', streamed, { 'content-type': 'application/json' }),
        MiB,
      )
      await expectTooLarge(send('POST', '/sessions', 8 * MiB, '{"profile":"', streamed, { 'content-type': 'application/json' }), MiB)
      expect(await expectJson<unknown[]>(call('GET', `/sessions/${s.id}/messages`, ana), 200)).toEqual([])
      expect(await expectJson<unknown[]>(call('GET', `/sessions/${s.id}/files?prefix=/context`, ana), 200)).toEqual([])
    })
  }

  it('multipart names are judged on their raw bytes, as on Node: a backslash, an absolute path or .. is 400', async () => {
    const s = await createSession(ana)
    for (const name of REFUSED_PART_NAMES) {
      const { body, contentType } = multipartWith(name, '{}')
      const res = await call('POST', `/sessions/${s.id}/files`, ana, body, { 'content-type': contentType })
      expect([name, res.status]).toEqual([name, 400])
      expect(((await res.json()) as any).error.code).toBe('invalid')
    }
    const { body, contentType } = multipartWith('notes/a b.md', 'fine')
    expect(await expectJson(call('POST', `/sessions/${s.id}/files`, ana, body, { 'content-type': contentType }), 201)).toEqual({
      paths: ['/context/notes/a b.md'],
    })
    const files = await expectJson<Array<{ path: string }>>(call('GET', `/sessions/${s.id}/files?prefix=/context`, ana), 200)
    expect(files.map(f => f.path)).toEqual(['/context/notes/a b.md'])
  })
})
