import type { Browser, Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendixFlow } from './appendix-flow.js'
import { openBrowser, openDemo } from './browser.js'
import { deliveredSeqs, installEventProbe } from './event-probe.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import { startWorker } from '../wrangler-dev/harness.js'
import { startNodeHost } from './node-host.js'
import { serveDemo } from './serve-demo.js'
import * as ui from './ui.js'

// Remote mode: the same UI against the session HTTP API of a host, one host at a time:
// - the Worker under `wrangler dev` (test/wrangler-dev/harness.ts), which serves the built demo
//   itself as static assets next to the API, as `wrangler deploy` ships it;
// - `npm run serve` (the Node host on PGlite), the built demo served by `vite preview` with the API
//   proxied on its origin.
// On both each model call is slowed (MODEL_DELAY_MS) so the reload while running lands mid-run.
// Beyond the in-tab flow: after every reload the page's events (SSE and GET /events, recorded by
// test/demo/event-probe.ts) hold no seq twice and miss none of the host's log, and at the end the
// timeline holds exactly the host's event log.
const EPISODES = 60
let browser: Browser
let input: InputFolder

/** A running host with the demo on some origin: the page's URL, the API's URL and a token. */
interface RemoteHost {
  demoUrl: string
  apiUrl: string
  token: string
  stop(): Promise<void>
}

const hosts: Array<{ name: string; flow: string; start(): Promise<RemoteHost> }> = [
  {
    name: 'the Worker under wrangler dev',
    flow: 'flow-remote-worker',
    async start() {
      // Each model call waits, as on the Node host, so the reload while running lands mid-run.
      const dev = await startWorker({ vars: { MODEL_DELAY_MS: '300' } })
      return { demoUrl: `${dev.url}/`, apiUrl: dev.url, token: await dev.token('dev'), stop: () => dev.stop() }
    },
  },
  {
    name: 'the Node host (npm run serve)',
    flow: 'flow-remote-node',
    async start() {
      const host = await startNodeHost({ modelDelayMs: 400 })
      try {
        const demo = await serveDemo({ api: host.url })
        return {
          demoUrl: demo.url,
          apiUrl: host.url,
          token: host.token,
          stop: async () => (await demo.close(), await host.stop()),
        }
      } catch (error) {
        await host.stop()
        throw error
      }
    },
  },
]

beforeAll(async () => {
  input = writeEpisodes({ count: EPISODES, name: 'season-one' })
  browser = await openBrowser()
})
afterAll(async () => {
  await browser?.close()
  input?.remove()
})

let host: RemoteHost

/** The host's stored events of a session, every page of them. */
async function hostEvents(id: string): Promise<Array<{ seq: number; type: string }>> {
  const out: Array<{ seq: number; type: string }> = []
  for (let after = 0; ;) {
    const res = await fetch(`${host.apiUrl}/sessions/${id}/events?after=${after}`, {
      headers: { authorization: `Bearer ${host.token}` },
    })
    expect(res.status).toBe(200)
    const { events } = (await res.json()) as { events: Array<{ seq: number; type: string }> }
    if (events.length === 0) return out
    out.push(...events)
    after = events.at(-1)!.seq
  }
}

/**
 * What the page shows and received equals the host's log: the events it received in this page
 * life are each new (no seq twice) and are exactly the log's up to the newest one it saw; every
 * timeline item is a logged event; the view's last seq is the log's newest when the page caught up.
 */
async function checkAgainstHost(page: Page, id: string): Promise<void> {
  const view = page.locator(`[data-testid="session-view"][data-session-id="${id}"]`)
  // Caught up: the view's last seq reaches the newest the host had when we asked.
  const logged = await hostEvents(id)
  const newest = logged.at(-1)!.seq
  await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel as string)?.getAttribute('data-last-seq')) >= (n as number), [
    `[data-testid="session-view"][data-session-id="${id}"]`,
    newest,
  ] as const)
  const delivered = (await deliveredSeqs(page)).map(d => d.seq)
  expect(delivered.length).toBeGreaterThan(0)
  expect(
    delivered.filter((s, i) => delivered.indexOf(s) !== i),
    'events delivered twice',
  ).toEqual([])
  const top = Math.max(...delivered)
  const all = (await hostEvents(id)).map(e => e.seq)
  expect(
    [...delivered].sort((a, b) => a - b),
    'events missing',
  ).toEqual(all.filter(s => s <= top))
  const shown = (await ui.timeline(page)).map(e => e.seq)
  for (const s of shown) expect(all).toContain(s)
  expect(Number(await view.getAttribute('data-last-seq'))).toBeGreaterThanOrEqual(newest)
}

describe.each(hosts)('remote mode against $name', ({ flow, start }) => {
  beforeAll(async () => {
    host = await start()
  }, 300_000)
  afterAll(() => host?.stop())

  it('runs the 60-episode appendix; each reload resumes the event stream with no event missing or repeated', async () => {
    const { page, errors } = await openDemo(browser, host.demoUrl, { init: installEventProbe })
    await ui.connect(page, { remote: { baseUrl: host.demoUrl.replace(/\/$/, ''), token: host.token } })
    const id = await appendixFlow(page, {
      flow,
      input,
      episodes: EPISODES,
      reloadWhileRunning: true,
      afterReload: checkAgainstHost,
    })
    await checkAgainstHost(page, id)
    const logged = await hostEvents(id)
    const shown = new Set((await ui.timeline(page)).map(e => e.seq))
    // Every logged event but tool results (shown on their call's card) has its own timeline item.
    for (const e of logged.filter(e => e.type !== 'tool-result' && e.type !== 'heartbeat'))
      expect(shown.has(e.seq), `event ${e.seq} (${e.type}) is not on the timeline`).toBe(true)
    expect(errors).toEqual([])
  })
})
