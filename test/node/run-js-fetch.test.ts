import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, type RunJsFetch } from '../../src/index.js'

const SECRET = 'sk-live-7f3a9c0e5b'

/** A loopback server on a port the kernel picks; `seen` records every request's headers. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Array<{ url: string; headers: IncomingMessage['headers'] }> = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', c => (body += c))
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers })
      handle(req, res, body)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return { port, origin: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>(r => server.close(() => r())) }
}

type Srv = Awaited<ReturnType<typeof serve>>
let echo: Srv
let other: Srv
let slow: Srv

beforeAll(async () => {
  other = await serve((req, res) => res.end(JSON.stringify({ other: true, headers: req.headers })))
  echo = await serve((req, res, body) => {
    const u = new URL(req.url ?? '/', 'http://x')
    if (u.pathname === '/redirect') {
      res.writeHead(302, { location: u.searchParams.get('to') ?? '/' })
      return res.end()
    }
    if (u.pathname === '/big') return res.end('x'.repeat(200_000))
    if (u.pathname === '/error') {
      res.writeHead(500, { 'x-echo-auth': String(req.headers.authorization) })
      return res.end(`bad token ${req.headers.authorization}`)
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body }))
  })
  slow = await serve(() => undefined) // never answers
})
afterAll(async () => {
  await Promise.all([echo.close(), other.close(), slow.close()])
})

async function runner(fetch: RunJsFetch, timeMs = 10_000) {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'fetch', scope: `s${Math.random()}` })
  return createRunJs({ vfs, fetch, limits: { timeMs } })
}

const allowEcho = (extra: Partial<RunJsFetch> = {}): RunJsFetch => ({
  allow: [{ prefix: `${echo.origin}/`, methods: ['GET', 'POST'], headers: { authorization: `Bearer ${SECRET}` } }],
  allowPrivate: [`127.0.0.1:${echo.port}`],
  ...extra,
})

describe('run_js fetch (host-executed, loopback servers only)', () => {
  it('fetches an allowed URL; the host adds the secret header, the program never sees it', async () => {
    const r = await (await runner(allowEcho())).run(`const res = await external_fetch('${echo.origin}/hello'); return res`)
    expect(r.error).toBeUndefined()
    const res = r.result as { status: number; body: string }
    expect(res.status).toBe(200)
    expect(echo.seen.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(JSON.stringify(r)).not.toContain(SECRET)
    expect(JSON.parse(res.body).headers.authorization).toBe('[secret]')
  })

  it('a program trying to read the secret back (echo, error bodies, headers, overriding it, logs) never sees it', async () => {
    const run = await runner(allowEcho())
    const r = await run.run(`
      const out = []
      out.push(await external_fetch('${echo.origin}/echo'))
      out.push(await external_fetch('${echo.origin}/error'))
      out.push(await external_fetch({ url: '${echo.origin}/echo', method: 'POST', headers: { authorization: 'mine' }, body: 'x' }))
      try { await external_fetch('http://127.0.0.1:1/closed') } catch (e) { out.push(e.message) }
      console.log(JSON.stringify(out))
      return out`)
    expect(r.error).toBeUndefined()
    expect(JSON.stringify(r)).not.toContain(SECRET)
    expect(JSON.stringify(r)).not.toContain('7f3a9c0e5b')
    // The host's header wins over the program's own.
    expect(echo.seen.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`)
  })

  it('a redirect to another host is re-checked: refused, and the secret is not sent there', async () => {
    const before = other.seen.length
    const r = await (
      await runner(allowEcho())
    ).run(
      `try { await external_fetch('${echo.origin}/redirect?to=${encodeURIComponent(other.origin + '/steal')}'); return 'followed' } catch (e) { return e.name + ': ' + e.message }`,
    )
    expect(r.result).toMatch(/^FetchRefused: .*not on this program's allow-list/)
    expect(other.seen.length).toBe(before)
  })

  it('a redirect inside the allow-list is followed, each hop checked', async () => {
    const r = await (await runner(allowEcho())).run(`return (await external_fetch('${echo.origin}/redirect?to=/final')).url`)
    expect(r.result).toBe(`${echo.origin}/final`)
  })

  it('methods outside the rule, URLs outside the prefix, and other schemes are refused', async () => {
    const run = await runner({ allow: [{ prefix: `${echo.origin}/api/` }], allowPrivate: [`127.0.0.1:${echo.port}`] })
    const tries = [
      `external_fetch({ url: '${echo.origin}/api/x', method: 'POST', body: '{}' })`,
      `external_fetch('${echo.origin}/other')`,
      `external_fetch('file:///etc/passwd')`,
      `external_fetch('http://user:pw@127.0.0.1:${echo.port}/api/x')`,
    ]
    for (const t of tries) {
      const r = await run.run(`try { await ${t}; return 'fetched' } catch (e) { return e.name }`)
      expect(r.result, t).toBe('FetchRefused')
    }
    expect((await run.run(`return (await external_fetch('${echo.origin}/api/x')).status`)).result).toBe(200)
  })

  describe('private and loopback addresses are refused unless allowed', () => {
    const p = () => echo.port
    const forms = () => [
      `http://127.0.0.1:${p()}/`,
      `http://2130706433:${p()}/`,
      `http://0x7f.0.0.1:${p()}/`,
      `http://0177.0.0.1:${p()}/`,
      `http://127.1:${p()}/`,
      `http://[::1]:${p()}/`,
      `http://[::ffff:127.0.0.1]:${p()}/`,
      `http://[::ffff:7f00:1]:${p()}/`,
      `http://localhost:${p()}/`,
      `http://app.localhost:${p()}/`,
      `http://10.0.0.1:${p()}/`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://[fe80::1]/`,
      `http://[fd00::1]/`,
      `http://0.0.0.0:${p()}/`,
    ]
    it('every spelling of a private host, even when the allow-list names it', async () => {
      const urls = forms()
      const run = await runner({ allow: urls.map(u => ({ prefix: u })) })
      for (const url of urls) {
        const r = await run.run(`try { await external_fetch('${url}'); return 'fetched' } catch (e) { return e.name + ': ' + e.message }`)
        expect(r.result, url).toMatch(/^FetchRefused: .*(loopback|private|link-local|unspecified|local network)/)
      }
      expect(echo.seen.every(s => !s.url.startsWith('/latest'))).toBe(true)
    })

    it('through a redirect from an allowed host to loopback', async () => {
      const before = other.seen.length
      const fetch = allowEcho({ allow: [{ prefix: `${echo.origin}/` }, { prefix: 'http://127.0.0.1:' }, { prefix: 'http://localhost:' }] })
      const run = await runner(fetch)
      for (const to of [
        `${other.origin}/x`,
        `http://localhost:${other.port}/x`,
        `http://[::ffff:127.0.0.1]:${other.port}/x`,
        `http://2130706433:${other.port}/x`,
      ]) {
        const r = await run.run(
          `try { await external_fetch('${echo.origin}/redirect?to=${encodeURIComponent(to)}'); return 'followed' } catch (e) { return e.name + ': ' + e.message }`,
        )
        expect(r.result, to).toMatch(/^FetchRefused: .*(loopback|allow-list)/)
      }
      expect(other.seen.length).toBe(before)
    })

    it('names that resolve to private addresses are refused when the host resolves names', async () => {
      const run = await runner({ allow: [{ prefix: 'http://internal.example.com/' }], resolve: async () => ['10.1.2.3'] })
      const r = await run.run(
        `try { await external_fetch('http://internal.example.com/'); return 'fetched' } catch (e) { return e.message }`,
      )
      expect(r.result).toMatch(/resolves to a private address/)
    })
  })

  it('response bytes, requests and time count against the run', async () => {
    const small = await runner(allowEcho({ limits: { maxResponseBytes: 100_000, maxRequests: 2 } }))
    const big = await small.run(`try { await external_fetch('${echo.origin}/big'); return 'read' } catch (e) { return e.message }`)
    expect(big.result).toMatch(/maxResponseBytes/)
    const many = await small.run(
      `const out = []; for (let i = 0; i < 3; i++) { try { await external_fetch('${echo.origin}/x'); out.push('ok') } catch (e) { out.push('refused') } } return out`,
    )
    expect(many.result).toEqual(['ok', 'ok', 'refused'])
    const hang = await runner({ allow: [{ prefix: `${slow.origin}/` }], allowPrivate: [`127.0.0.1:${slow.port}`] }, 500)
    const t0 = performance.now()
    const r = await hang.run(`await external_fetch('${slow.origin}/never')`)
    expect(r.error?.name).toBe('TimeoutError')
    expect(performance.now() - t0).toBeLessThan(10_000)
  }, 30_000)

  it('a new host can be routed to an approval (ask); denied, it is refused', async () => {
    const asked: string[] = []
    const fetch: RunJsFetch = {
      allow: [],
      allowPrivate: [`127.0.0.1:${echo.port}`, `127.0.0.1:${other.port}`],
      ask: ({ origin }) => (asked.push(origin), origin === echo.origin ? 'allow' : 'deny'),
    }
    const run = await runner(fetch)
    expect((await run.run(`return (await external_fetch('${echo.origin}/a')).status`)).result).toBe(200)
    expect((await run.run(`return (await external_fetch('${echo.origin}/b')).status`)).result).toBe(200)
    const denied = await run.run(`try { await external_fetch('${other.origin}/'); return 'fetched' } catch (e) { return e.name }`)
    expect(denied.result).toBe('FetchRefused')
    expect(asked).toEqual([echo.origin, other.origin])
  })
})
