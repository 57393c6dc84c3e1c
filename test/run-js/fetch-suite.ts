import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, type QuickJsEngine, type RunJsFetch } from '../../src/index.js'
import type { FetchOrigins } from './fetch-servers.js'

/** What a runtime gives the fetch suite. */
export interface FetchHarness {
  /** The loopback servers (fetch-servers.ts): started by the test file in Node, by a global setup elsewhere. */
  origins: () => FetchOrigins | Promise<FetchOrigins>
  engine?: QuickJsEngine
  /**
   * Whether the host's fetch lets it read redirects (`redirect: 'manual'`): Node and workerd do; a
   * browser answers an opaque redirect, so there every redirect is refused.
   */
  redirects: 'inspected' | 'opaque'
}

const SECRET = 'sk-live-7f3a9c0e5b'

/** What a server saw, asked over HTTP (a test in workerd or Chromium cannot read the server's memory). */
async function seen(origin: string): Promise<Array<{ method: string; url: string; authorization?: string }>> {
  return (await (await fetch(`${origin}/__seen`)).json()) as Array<{ method: string; url: string; authorization?: string }>
}

/**
 * The capability-scoped `external_fetch`, the same in every runtime, against loopback servers only:
 * the secret never reaches the guest, redirects and private addresses are re-checked, the
 * allow-list holds for methods and prefixes, bytes, requests and time count against the run, and a
 * URL on no rule goes to `ask`. Hostile cases first written against the Node host.
 */
export function describeRunJsFetch(name: string, h: FetchHarness): void {
  describe(`run_js fetch (host-executed, loopback servers only): ${name}`, () => {
    let o: FetchOrigins
    const port = (origin: string) => new URL(origin).port
    const host = (origin: string) => new URL(origin).host
    const runner = async (fetch: RunJsFetch, timeMs = 10_000) => {
      o ??= await h.origins()
      const vfs = await openVfs({ store: memoryStore(), namespace: 'fetch', scope: `s${Math.random()}` })
      return createRunJs({ vfs, fetch, limits: { timeMs }, typescript: false, ...(h.engine ? { engine: h.engine } : {}) })
    }
    const origins = async () => (o ??= await h.origins())
    const allowEcho = (extra: Partial<RunJsFetch> = {}): RunJsFetch => ({
      allow: [{ prefix: `${o.echo}/`, methods: ['GET', 'POST'], headers: { authorization: `Bearer ${SECRET}` } }],
      allowPrivate: [host(o.echo)],
      ...extra,
    })
    const refusedRedirect = /cannot inspect redirects/

    it('fetches an allowed URL; the host adds the secret header, the program never sees it', async () => {
      await origins()
      const r = await (await runner(allowEcho())).run(`const res = await external_fetch('${o.echo}/hello'); return res`)
      expect(r.error).toBeUndefined()
      const res = r.result as { status: number; body: string }
      expect(res.status).toBe(200)
      expect((await seen(o.echo)).at(-1)?.authorization).toBe(`Bearer ${SECRET}`)
      expect(JSON.stringify(r)).not.toContain(SECRET)
      expect(JSON.parse(res.body).headers.authorization).toBe('[secret]')
    })

    it('a program trying to read the secret back (echo, error bodies, headers, overriding it, logs) never sees it', async () => {
      await origins()
      const run = await runner(allowEcho())
      const r = await run.run(`
        const out = []
        out.push(await external_fetch('${o.echo}/echo'))
        out.push(await external_fetch('${o.echo}/error'))
        out.push(await external_fetch({ url: '${o.echo}/echo', method: 'POST', headers: { authorization: 'mine' }, body: 'x' }))
        try { await external_fetch('http://127.0.0.1:1/closed') } catch (e) { out.push(e.message) }
        console.log(JSON.stringify(out))
        return out`)
      expect(r.error).toBeUndefined()
      expect(JSON.stringify(r)).not.toContain(SECRET)
      expect(JSON.stringify(r)).not.toContain('7f3a9c0e5b')
      // The host's header wins over the program's own.
      expect((await seen(o.echo)).at(-1)?.authorization).toBe(`Bearer ${SECRET}`)
    })

    it('a redirect to another host is re-checked: refused, and the secret is not sent there', async () => {
      await origins()
      const before = (await seen(o.other)).length
      const r = await (
        await runner(allowEcho())
      ).run(
        `try { await external_fetch('${o.echo}/redirect?to=${encodeURIComponent(o.other + '/steal')}'); return 'followed' } catch (e) { return e.name + ': ' + e.message }`,
      )
      expect(r.result).toMatch(h.redirects === 'inspected' ? /^FetchRefused: .*not on this program's allow-list/ : refusedRedirect)
      expect((await seen(o.other)).length).toBe(before)
    })

    it('a redirect inside the allow-list is followed, each hop checked (refused where redirects are opaque)', async () => {
      await origins()
      const r = await (
        await runner(allowEcho())
      ).run(`try { return (await external_fetch('${o.echo}/redirect?to=/final')).url } catch (e) { return e.message }`)
      if (h.redirects === 'inspected') expect(r.result).toBe(`${o.echo}/final`)
      else expect(r.result).toMatch(refusedRedirect)
    })

    it('methods outside the rule, URLs outside the prefix, and other schemes are refused', async () => {
      await origins()
      const run = await runner({ allow: [{ prefix: `${o.echo}/api/` }], allowPrivate: [host(o.echo)] })
      const tries = [
        `external_fetch({ url: '${o.echo}/api/x', method: 'POST', body: '{}' })`,
        `external_fetch('${o.echo}/other')`,
        `external_fetch('file:///etc/passwd')`,
        `external_fetch('http://user:pw@127.0.0.1:${port(o.echo)}/api/x')`,
      ]
      const before = (await seen(o.echo)).length
      for (const t of tries) {
        const r = await run.run(`try { await ${t}; return 'fetched' } catch (e) { return e.name }`)
        expect(r.result, t).toBe('FetchRefused')
      }
      expect((await seen(o.echo)).length).toBe(before)
      expect((await run.run(`return (await external_fetch('${o.echo}/api/x')).status`)).result).toBe(200)
    })

    describe('private and loopback addresses are refused unless allowed', () => {
      const forms = (p: string) => [
        `http://127.0.0.1:${p}/`,
        `http://2130706433:${p}/`,
        `http://0x7f.0.0.1:${p}/`,
        `http://0177.0.0.1:${p}/`,
        `http://127.1:${p}/`,
        `http://[::1]:${p}/`,
        `http://[::ffff:127.0.0.1]:${p}/`,
        `http://[::ffff:7f00:1]:${p}/`,
        `http://localhost:${p}/`,
        `http://app.localhost:${p}/`,
        `http://10.0.0.1:${p}/`,
        `http://169.254.169.254/latest/meta-data/`,
        `http://[fe80::1]/`,
        `http://[fd00::1]/`,
        `http://0.0.0.0:${p}/`,
      ]
      it('every spelling of a private host, even when the allow-list names it', async () => {
        await origins()
        const urls = forms(port(o.echo))
        // Rules name them as the URL parser writes them (another spelling is refused when the rule is made).
        const run = await runner({ allow: urls.map(u => ({ prefix: new URL(u).href })) })
        const before = (await seen(o.echo)).length
        for (const url of urls) {
          const r = await run.run(`try { await external_fetch('${url}'); return 'fetched' } catch (e) { return e.name + ': ' + e.message }`)
          expect(r.result, url).toMatch(/^FetchRefused: .*(loopback|private|link-local|unspecified|local network)/)
        }
        expect((await seen(o.echo)).length).toBe(before)
      })

      it('through a redirect from an allowed host to loopback', async () => {
        await origins()
        const before = (await seen(o.other)).length
        const run = await runner(
          allowEcho({
            allow: [{ prefix: `${o.echo}/` }, { prefix: `${o.other}/` }, { prefix: `http://localhost:${port(o.other)}/` }],
          }),
        )
        const p = port(o.other)
        for (const to of [`${o.other}/x`, `http://localhost:${p}/x`, `http://[::ffff:127.0.0.1]:${p}/x`, `http://2130706433:${p}/x`]) {
          const r = await run.run(
            `try { await external_fetch('${o.echo}/redirect?to=${encodeURIComponent(to)}'); return 'followed' } catch (e) { return e.name + ': ' + e.message }`,
          )
          expect(r.result, to).toMatch(h.redirects === 'inspected' ? /^FetchRefused: .*(loopback|allow-list)/ : refusedRedirect)
        }
        expect((await seen(o.other)).length).toBe(before)
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
      await origins()
      const small = await runner(allowEcho({ limits: { maxResponseBytes: 100_000, maxRequests: 2 } }))
      const big = await small.run(`try { await external_fetch('${o.echo}/big'); return 'read' } catch (e) { return e.message }`)
      expect(big.result).toMatch(/maxResponseBytes/)
      const many = await small.run(
        `const out = []; for (let i = 0; i < 3; i++) { try { await external_fetch('${o.echo}/x'); out.push('ok') } catch (e) { out.push('refused') } } return out`,
      )
      expect(many.result).toEqual(['ok', 'ok', 'refused'])
      const body = await small.run(
        `try { await external_fetch({ url: '${o.echo}/x', method: 'POST', body: 'y'.repeat(2 * 1024 * 1024) }); return 'sent' } catch (e) { return e.message }`,
      )
      expect(body.result).toMatch(/maxRequestBytes/)
      const hang = await runner({ allow: [{ prefix: `${o.slow}/` }], allowPrivate: [host(o.slow)] }, 500)
      const t0 = performance.now()
      const r = await hang.run(`await external_fetch('${o.slow}/never')`)
      expect(r.error?.name).toBe('TimeoutError')
      expect(performance.now() - t0).toBeLessThan(10_000)
    }, 30_000)

    it('a new host can be routed to an approval (ask); denied, it is refused', async () => {
      await origins()
      const asked: string[] = []
      const run = await runner({
        allow: [],
        allowPrivate: [host(o.echo), host(o.other)],
        ask: ({ origin }) => (asked.push(origin), origin === o.echo ? 'allow' : 'deny'),
      })
      expect((await run.run(`return (await external_fetch('${o.echo}/a')).status`)).result).toBe(200)
      expect((await run.run(`return (await external_fetch('${o.echo}/b')).status`)).result).toBe(200)
      const denied = await run.run(`try { await external_fetch('${o.other}/'); return 'fetched' } catch (e) { return e.name }`)
      expect(denied.result).toBe('FetchRefused')
      expect(asked).toEqual([o.echo, o.other])
    })
  })
}
