import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, type RunJs, type RunJsFetch } from '../../src/index.js'
import type { FetchHarness } from '../run-js/fetch-suite.js'

const SECRET = 'sk-live-9d2b7c4e1a'

/** What a server saw, asked over HTTP (a test in workerd or Chromium cannot read the server's memory). */
async function seen(origin: string): Promise<Array<{ method: string; url: string; authorization?: string }>> {
  return (await (await fetch(`${origin}/__seen`)).json()) as Array<{ method: string; url: string; authorization?: string }>
}

/**
 * The host's own fetch, measured: a byte stream in front of the real body forwards only what its
 * reader asks for, so `read()` is what the host pulled from the network for the program.
 */
function measuredFetch(): { fetch: typeof fetch; read: () => number } {
  let read = 0
  const measured: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (!response.body) return response
    const source = response.body.getReader({ mode: 'byob' })
    const body = new ReadableStream({
      type: 'bytes',
      async pull(controller) {
        const request = controller.byobRequest
        const { done, value } = await source.read(new Uint8Array(request?.view?.byteLength ?? 64 * 1024))
        if (done || !value) {
          controller.close()
          request?.respond(0)
          return
        }
        read += value.byteLength
        if (!request?.view) return controller.enqueue(value)
        new Uint8Array(request.view.buffer, request.view.byteOffset, value.byteLength).set(value)
        request.respond(value.byteLength)
      },
      cancel: reason => source.cancel(reason),
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
  return { fetch: measured, read: () => read }
}

/**
 * A host fetch that never touches the network (the addresses below must not be reached from this
 * machine): it records what it was asked to send and answers 200.
 */
function recordingFetch(): { fetch: typeof fetch; calls: Array<{ url: string; authorization: string | null }> } {
  const calls: Array<{ url: string; authorization: string | null }> = []
  const recording: typeof fetch = async (input, init) => {
    calls.push({ url: String(input), authorization: new Headers(init?.headers).get('authorization') })
    return new Response('recorded', { status: 200 })
  }
  return { fetch: recording, calls }
}

/**
 * Issue 27, cases 3, 4 and 7 (fetch): a tenant's program against the host's fetch. Each was written
 * before its fix and failed on the code of the time: concurrent requests read past the run's response
 * cap, a rule matched by string prefix sent its secret to other origins, the status text carried the
 * secret back, and IPv6 (and reserved IPv4) forms of private addresses passed the address check.
 */
export function describeRunJsFetchHostile(name: string, h: FetchHarness): void {
  describe(`run_js fetch, hostile tenant: ${name}`, () => {
    const engine = h.engine ? { engine: h.engine } : {}
    const runner = async (fetch: RunJsFetch): Promise<RunJs> => {
      const vfs = await openVfs({ store: memoryStore(), namespace: 'fetch-hostile', scope: `s${Math.random()}` })
      return createRunJs({ vfs, fetch, limits: { timeMs: 20_000 }, typescript: false, ...engine })
    }
    const host = (origin: string) => new URL(origin).host

    it('20 concurrent requests share one response budget: the program gets and the host reads at most the cap', async () => {
      const { echo } = await h.origins()
      const cap = 400_000
      const measured = measuredFetch()
      const run = await runner({
        allow: [{ prefix: `${echo}/` }],
        allowPrivate: [host(echo)],
        limits: { maxResponseBytes: cap, maxRequests: 50 },
        fetch: measured.fetch,
      })
      const r = await run.run(`
        const all = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => external_fetch('${echo}/big?bytes=150000&i=' + i)))
        const got = all.filter(a => a.status === 'fulfilled').map(a => a.value.body.length)
        const refused = all.filter(a => a.status === 'rejected').map(a => a.reason.message)
        return { received: got.reduce((a, b) => a + b, 0), ok: got.length, refused }`)
      run.close()
      expect(r.error).toBeUndefined()
      const out = r.result as { received: number; ok: number; refused: string[] }
      expect(out.received).toBeLessThanOrEqual(cap)
      expect(out.ok).toBeGreaterThanOrEqual(1)
      expect(out.refused.length).toBe(20 - out.ok)
      for (const message of out.refused) expect(message).toMatch(/maxResponseBytes/)
      expect(measured.read()).toBeLessThanOrEqual(cap)
    }, 60_000)

    it('bodies of unknown length share the budget too: reserved chunk by chunk, the readers cancelled when it is spent', async () => {
      const { echo } = await h.origins()
      const cap = 400_000
      const measured = measuredFetch()
      const run = await runner({
        allow: [{ prefix: `${echo}/` }],
        allowPrivate: [host(echo)],
        limits: { maxResponseBytes: cap },
        fetch: measured.fetch,
      })
      const r = await run.run(`
        const all = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => external_fetch('${echo}/big?chunked&bytes=150000&i=' + i)))
        const got = all.filter(a => a.status === 'fulfilled').map(a => a.value.body.length)
        const refused = all.filter(a => a.status === 'rejected').map(a => a.reason.message)
        return { received: got.reduce((a, b) => a + b, 0), refused }`)
      run.close()
      const out = r.result as { received: number; refused: string[] }
      expect(out.received).toBeLessThanOrEqual(cap)
      expect(out.refused.length).toBeGreaterThan(0)
      for (const message of out.refused) expect(message).toMatch(/maxResponseBytes/)
      expect(measured.read()).toBeLessThanOrEqual(cap)
    }, 60_000)

    it('a response that declares more than the run may still read is refused before its body is read', async () => {
      const { echo } = await h.origins()
      const measured = measuredFetch()
      const run = await runner({
        allow: [{ prefix: `${echo}/` }],
        allowPrivate: [host(echo)],
        limits: { maxResponseBytes: 100_000 },
        fetch: measured.fetch,
      })
      const r = await run.run(`
        const out = []
        try { await external_fetch('${echo}/big?bytes=1000000'); out.push('read') } catch (e) { out.push(e.message) }
        out.push((await external_fetch('${echo}/big?bytes=90000')).body.length)
        return out`)
      run.close()
      expect(r.result).toEqual([expect.stringMatching(/maxResponseBytes/), 90_000])
      expect(measured.read()).toBeLessThanOrEqual(100_000)
    }, 30_000)

    describe('a rule matches an exact origin, then the path on a segment boundary', () => {
      it('a prefix that is not an origin followed by a path is refused when the rule is made, saying what to write', async () => {
        const { echo } = await h.origins()
        const port = new URL(echo).port
        const vfs = await openVfs({ store: memoryStore(), namespace: 'fetch-hostile', scope: 'rules' })
        const make = (prefix: string) => () =>
          createRunJs({
            vfs,
            fetch: { allow: [{ prefix, headers: { authorization: `Bearer ${SECRET}` } }], allowPrivate: true },
            ...engine,
          })
        expect(make('https://api.example.com')).toThrow(/write "https:\/\/api\.example\.com\/"/)
        // A string prefix of the echo server's origin: another port, which once matched it and got the secret.
        expect(make(`http://127.0.0.1:${port.slice(0, -1)}`)).toThrow(new RegExp(`write "http://127\\.0\\.0\\.1:${port.slice(0, -1)}/"`))
        expect(make('http://127.0.0.1')).toThrow(/write "http:\/\/127\.0\.0\.1\/"/)
        expect(make('https://api.example.com/v1?key=1')).toThrow(/query/)
        expect(make('https://API.example.com:443/v1/')).toThrow(/write "https:\/\/api\.example\.com\/v1\/"/)
        expect(make('https://api.example.com/v1/../admin/')).toThrow(/write "https:\/\/api\.example\.com\/admin\/"/)
        expect(make('https://user:pw@api.example.com/')).toThrow(/credentials/)
        expect(make('ftp://api.example.com/')).toThrow(/http/)
        expect(make('api.example.com/v1/')).toThrow(/origin/)
        expect(make('https://api.example.com/')).not.toThrow()
      })

      it('other hosts that start with the rule’s host, other ports and sibling paths get no request and no secret', async () => {
        const rec = recordingFetch()
        const run = await runner({
          allow: [{ prefix: 'https://api.example.com/v1', headers: { authorization: `Bearer ${SECRET}` } }],
          fetch: rec.fetch,
        })
        for (const url of [
          'https://api.example.com.evil.net/v1',
          'https://api.example.comx.net/v1',
          'https://api.example.com:8443/v1',
          'http://api.example.com/v1',
          'https://api.example.com/v1x',
          'https://api.example.com/v10/a',
          'https://api.example.com/v1/../admin',
          'https://api.example.com/v1/%2e%2e/admin',
        ]) {
          const r = await run.run(`try { await external_fetch('${url}'); return 'fetched' } catch (e) { return e.name + ': ' + e.message }`)
          expect(r.result, url).toMatch(/^FetchRefused: .*not on this program's allow-list/)
        }
        expect(rec.calls).toEqual([])
        for (const url of ['https://api.example.com/v1', 'https://api.example.com/v1/', 'https://api.example.com/v1/a?q=1']) {
          const r = await run.run(`return (await external_fetch('${url}')).body`)
          expect(r.result, url).toBe('recorded')
        }
        expect(rec.calls.map(c => c.authorization)).toEqual(Array(3).fill(`Bearer ${SECRET}`))
        run.close()
      })

      // A browser cannot read redirects: there every redirect is refused (fetch-suite.ts).
      it.skipIf(h.redirects !== 'inspected')(
        'a redirect from an allowed path to a sibling path of the same origin is refused, and gets no secret',
        async () => {
          const { echo } = await h.origins()
          const run = await runner({
            allow: [{ prefix: `${echo}/redirect`, headers: { authorization: `Bearer ${SECRET}` } }],
            allowPrivate: [host(echo)],
          })
          const r = await run.run(
            `try { await external_fetch('${echo}/redirect?to=/redirectx/steal'); return 'followed' } catch (e) { return e.name + ': ' + e.message }`,
          )
          run.close()
          expect(r.result).toMatch(/^FetchRefused: .*not on this program's allow-list/)
          expect((await seen(echo)).filter(s => s.url.startsWith('/redirectx'))).toEqual([])
        },
      )
    })

    it('the status text is redacted like the headers and the body', async () => {
      const { echo } = await h.origins()
      const run = await runner({
        allow: [{ prefix: `${echo}/`, headers: { authorization: `Bearer ${SECRET}` } }],
        allowPrivate: [host(echo)],
      })
      const r = await run.run(`const res = await external_fetch('${echo}/status-echo'); return res.statusText`)
      run.close()
      expect((await seen(echo)).at(-1)?.authorization).toBe(`Bearer ${SECRET}`)
      expect(JSON.stringify(r)).not.toContain(SECRET)
      // Where the runtime exposes the reason phrase (HTTP/1.1), it arrives with the secret replaced.
      if (r.result) expect(r.result).toBe('ok [secret]')
    })

    describe('private and special-purpose addresses in every form are refused (never reached: a recording fetch)', () => {
      const refusedUrls = [
        'http://[fec0::1]/', // site-local (deprecated, still private)
        'http://[::ffff:0:a00:1]/', // IPv4-translated 10.0.0.1
        'http://[::ffff:0:7f00:1]/', // IPv4-translated 127.0.0.1
        'http://[64:ff9b:1::a00:1]/', // local-use NAT64
        'http://[64:ff9b:1::808:808]/', // local-use NAT64, even with a public IPv4 inside
        'http://[64:ff9b::a00:1]/', // well-known NAT64 of 10.0.0.1
        'http://[2002:a00:1::1]/', // 6to4 of 10.0.0.1
        'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
        'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', // Teredo, client 10.0.0.1 (obfuscated)
        'http://[2001:0:a00:1:8000:63bf:3fff:fdd2]/', // Teredo, server 10.0.0.1
        'http://[::a00:1]/', // IPv4-compatible (deprecated)
        'http://[100::1]/', // discard-only
        'http://[2001:db8::1]/', // documentation
        'http://192.0.0.1/', // IETF protocol assignments
        'http://192.0.2.1/', // TEST-NET-1
        'http://198.51.100.7/', // TEST-NET-2
        'http://203.0.113.9/', // TEST-NET-3
        'http://240.0.0.1/', // reserved
        'http://255.255.255.255/', // broadcast
      ]
      it('as literal hosts, even when a rule names them', async () => {
        const rec = recordingFetch()
        const run = await runner({ allow: refusedUrls.map(u => ({ prefix: new URL(u).href })), fetch: rec.fetch })
        for (const url of refusedUrls) {
          const r = await run.run(`try { await external_fetch('${url}'); return 'fetched' } catch (e) { return e.name + ': ' + e.message }`)
          expect(r.result, url).toMatch(/^FetchRefused: .* which programs may not reach/)
        }
        run.close()
        expect(rec.calls).toEqual([])
      })

      it('as addresses a name resolves to', async () => {
        const rec = recordingFetch()
        const addresses = ['2002:a00:1::1', 'fec0::1', '::ffff:0:a00:1', '192.0.2.1', '100::1', '64:ff9b:1::1']
        let next = 0
        const run = await runner({
          allow: [{ prefix: 'http://api.example.com/' }],
          resolve: async () => [addresses[next++]],
          fetch: rec.fetch,
        })
        for (const address of addresses) {
          const r = await run.run(
            `try { await external_fetch('http://api.example.com/'); return 'fetched' } catch (e) { return e.message }`,
          )
          expect(r.result, address).toMatch(/resolves to .* which programs may not reach/)
        }
        run.close()
        expect(rec.calls).toEqual([])
      })

      it('public unicast space still passes (the check is not a blanket refusal)', async () => {
        const rec = recordingFetch()
        const publicUrls = ['http://1.1.1.1/', 'http://[2606:4700::1111]/', 'http://[64:ff9b::808:808]/', 'http://[::ffff:8.8.8.8]/']
        const run = await runner({ allow: publicUrls.map(u => ({ prefix: new URL(u).href })), fetch: rec.fetch })
        for (const url of publicUrls) expect((await run.run(`return (await external_fetch('${url}')).status`)).result, url).toBe(200)
        run.close()
        expect(rec.calls.length).toBe(publicUrls.length)
      })
    })
  })
}
