import type { Browser, Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendixFlow } from './appendix-flow.js'
import { openBrowser, openDemo } from './browser.js'
import { deliveredSeqs, installEventProbe } from './event-probe.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import { startNodeHost, type NodeHost } from './node-host.js'
import { serveDemo, type ServedDemo } from './serve-demo.js'
import * as ui from './ui.js'

// Remote mode: the same UI against the session HTTP API of a host, here `npm run serve` (the
// Node host on PGlite). The built demo is served with the API proxied on its own origin, as the
// Worker serves it. Each model call is slowed (MODEL_DELAY_MS) so a reload lands while the run
// runs; no assertion depends on it. Beyond the in-tab flow: after every reload the page's events
// (SSE and GET /events, recorded by test/demo/event-probe.ts) hold no seq twice, and the timeline
// holds exactly the host's event log.
const EPISODES = 60
let browser: Browser
let input: InputFolder
let host: NodeHost
let demo: ServedDemo

beforeAll(async () => {
  input = writeEpisodes({ count: EPISODES, name: 'season-one' })
  host = await startNodeHost({ modelDelayMs: 400 })
  demo = await serveDemo({ api: host.url })
  browser = await openBrowser()
})
afterAll(async () => {
  await browser?.close()
  await demo?.close()
  await host?.stop()
  input?.remove()
})

/** The host's stored events of a session, every page of them. */
async function hostEvents(id: string): Promise<Array<{ seq: number; type: string }>> {
  const out: Array<{ seq: number; type: string }> = []
  for (let after = 0; ; ) {
    const res = await fetch(`${host.url}/sessions/${id}/events?after=${after}`, { headers: { authorization: `Bearer ${host.token}` } })
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
  await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel as string)?.getAttribute('data-last-seq')) >= (n as number), [`[data-testid="session-view"][data-session-id="${id}"]`, newest] as const)
  const delivered = (await deliveredSeqs(page)).map((d) => d.seq)
  expect(delivered.length).toBeGreaterThan(0)
  expect(delivered.filter((s, i) => delivered.indexOf(s) !== i), 'events delivered twice').toEqual([])
  const top = Math.max(...delivered)
  const all = (await hostEvents(id)).map((e) => e.seq)
  expect([...delivered].sort((a, b) => a - b), 'events missing').toEqual(all.filter((s) => s <= top))
  const shown = (await ui.timeline(page)).map((e) => e.seq)
  for (const s of shown) expect(all).toContain(s)
  expect(Number(await view.getAttribute('data-last-seq'))).toBeGreaterThanOrEqual(newest)
}

describe('remote mode against the Node host (npm run serve)', () => {
  it('runs the 60-episode appendix; each reload resumes the event stream with no event missing or repeated', async () => {
    const { page, errors } = await openDemo(browser, demo.url, { init: installEventProbe })
    await ui.connect(page, { remote: { baseUrl: demo.url.replace(/\/$/, ''), token: host.token } })
    const id = await appendixFlow(page, { flow: 'flow-remote-node', input, episodes: EPISODES, reloadWhileRunning: true, afterReload: checkAgainstHost })
    await checkAgainstHost(page, id)
    const logged = await hostEvents(id)
    const shown = new Set((await ui.timeline(page)).map((e) => e.seq))
    // Every logged event but tool results (shown on their call's card) has its own timeline item.
    for (const e of logged.filter((e) => e.type !== 'tool-result' && e.type !== 'heartbeat')) expect(shown.has(e.seq), `event ${e.seq} (${e.type}) is not on the timeline`).toBe(true)
    expect(errors).toEqual([])
  })
})
