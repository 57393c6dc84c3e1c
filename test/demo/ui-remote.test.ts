import type { Browser, Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBrowser, openDemo, stage } from './browser.js'
import { writeEpisodes, writeFolder, type InputFolder } from './inputs.js'
import { startNodeHost, type NodeHost } from './node-host.js'
import { serveDemo, type ServedDemo } from './serve-demo.js'
import * as ui from './ui.js'

// The demo's UI itself (demo/src/ui), against a real Node host (`npm run serve` on PGlite) through
// the built demo with the API on its own origin: connection errors, the session list's actions,
// uploads that must be refused with nothing written, every kind of preview, the event feed's
// resume after a reload (Last-Event-ID from sessionStorage), prompts answered by keyboard, and a
// phone-sized layout. The full task flows are in flow-*.test.ts.
let browser: Browser
let host: NodeHost
let demo: ServedDemo
let episodes: InputFolder

beforeAll(async () => {
  // Slow enough that an execution is still running when the test aborts it.
  host = await startNodeHost({ modelDelayMs: 300 })
  demo = await serveDemo({ api: host.url })
  browser = await openBrowser()
  episodes = writeEpisodes({ count: 6, name: 'six' })
})
afterAll(async () => {
  await browser?.close()
  await demo?.close()
  await host?.stop()
  episodes?.remove()
})

/** A call to the host's API from the test, as the dev owner. */
async function api<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${host.url}${path}`, { headers: { authorization: `Bearer ${host.token}` } })
  return { status: res.status, body: (await res.json()) as T }
}
const hostFiles = async (id: string) => (await api<Array<{ path: string }>>(`/sessions/${id}/files`)).body.map(f => f.path)

/** A fresh page connected to the host (the base URL left empty: the page's own origin). */
async function connected(viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const opened = await openDemo(browser, demo.url, viewport ? { viewport } : {})
  await ui.connect(opened.page, { remote: { baseUrl: '', token: host.token } })
  return opened
}

/** Errors a page may log on purpose in these tests: the refused requests the UI then explains. */
const expected = (errors: string[], ...statuses: number[]) => errors.filter(e => !statuses.some(s => e.includes(`status of ${s}`)))

describe('demo UI against the Node host', () => {
  it('connection: a bad token is a clear message; the dev token connects and lists sessions', async () => {
    const { page, errors } = await openDemo(browser, demo.url)
    await page.getByTestId('mode-remote').check()
    await page.getByTestId('remote-token').fill('not.a.token')
    await page.getByTestId('connect').click()
    await expect.poll(() => page.getByTestId('app-error').textContent()).toMatch(/token.*401/s)
    // The host's sentence ends before the demo's hint begins (issue 28: "…or expired The token is…").
    expect(await page.getByTestId('app-error').textContent()).toMatch(/the token is invalid or expired\. The token is missing/)
    expect(await page.getByTestId('connection-status').textContent()).toBe('not connected')
    await page.getByTestId('remote-token').fill(host.token)
    await page.getByTestId('connect').click()
    await ui.sessionsLoaded(page)
    expect(await page.getByTestId('connection-status').textContent()).toMatch(/^connected \(remote /)
    expect(await page.getByTestId('app-error').count()).toBe(0)
    // Saved in this browser only: a reload connects again by itself.
    await page.reload()
    await ui.sessionsLoaded(page)
    expect(expected(errors, 401)).toEqual([])
  })

  it('sessions: create with a profile, close, reopen and delete, the list and the host agreeing', async () => {
    const { page, errors } = await connected()
    const id = await ui.createSession(page, { profile: 'appendix-asking', title: 'list actions' })
    const item = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)
    expect(await item.textContent()).toContain('appendix-asking')
    expect(await ui.waitStatus(page, 'idle')).toBe('idle')
    await item.getByTestId('session-close').click()
    await page.waitForFunction(
      sel => document.querySelector(sel)?.getAttribute('data-status') === 'closed',
      `[data-testid="session-item"][data-session-id="${id}"]`,
    )
    expect((await api<{ status: string }>(`/sessions/${id}`)).body.status).toBe('closed')
    await ui.waitStatus(page, 'closed')
    expect(await page.getByTestId('message-text').isDisabled()).toBe(true)
    await item.getByTestId('session-reopen').click()
    await ui.waitStatus(page, 'idle')
    expect(await page.getByTestId('message-text').isDisabled()).toBe(false)
    // Delete asks once more; "Keep" keeps it.
    await item.getByTestId('session-delete').click()
    await item.getByTestId('session-delete-cancel').click()
    expect(await item.count()).toBe(1)
    await item.getByTestId('session-delete').click()
    await item.getByTestId('session-delete-confirm').click()
    await item.waitFor({ state: 'detached' })
    expect(await page.getByTestId('session-view').count()).toBe(0)
    expect((await api(`/sessions/${id}`)).status).toBe(404)
    expect(errors).toEqual([])
  })

  it('uploads: a non-UTF-8 file, hostile names and an oversized request are refused with a clear message and nothing written', async () => {
    const { page, errors } = await connected()
    const id = await ui.createSession(page, { profile: 'appendix', title: 'bad uploads' })
    const latin1 = new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x0a]) // "Café" in Latin-1
    let out = await ui.uploadFiles(page, [
      { name: 'good.md', mimeType: 'text/markdown', buffer: Buffer.from('# fine\n') },
      { name: 'latin1.md', mimeType: 'text/markdown', buffer: Buffer.from(latin1) },
    ])
    expect(out.ok).toBe(false)
    expect(out.text).toMatch(/^Nothing was uploaded\. latin1\.md is not UTF-8 text/)
    // The top folder's own name counts too, though its contents land in the chosen folder.
    const bidi = writeFolder('evil\u202Egnp.md', { 'notes.md': 'hello\n' })
    const nested = writeFolder('fine', { 'sub\u200Bdir/notes.md': 'hello\n', 'ok.md': 'ok\n' })
    try {
      out = await ui.uploadFolder(page, bidi.dir)
      expect(out.ok).toBe(false)
      expect(out.text).toContain('evil<U+202E>gnp.md/notes.md')
      expect(out.text).toContain('bidirectional control')
      out = await ui.uploadFolder(page, nested.dir)
      expect(out.ok).toBe(false)
      expect(out.text).toContain('fine/sub<U+200B>dir/notes.md')
      expect(out.text).toContain('zero-width')
    } finally {
      bidi.remove()
      nested.remove()
    }
    // Over the API's 20 MiB request limit: refused before it is sent (a proxy may turn the host's
    // early 413 into a bare 502), with the limit named.
    out = await ui.uploadFiles(page, [{ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(21 * 1024 * 1024, 0x61) }])
    expect(out.ok).toBe(false)
    expect(out.text).toMatch(
      /^Nothing was uploaded\. the upload is too large: 21\.0 MiB \(big\.txt alone is over the limit\), and uploads are limited to 20971520 bytes/,
    )
    expect(await hostFiles(id)).toEqual([])
    expect(await ui.treePaths(page)).toEqual([])
    await stage(page, 'ui-remote', 'bad-upload')
    expect(expected(errors, 413)).toEqual([])
  })

  it('previews: Markdown rendered and sanitised, JSON as a tree, text and code with line numbers, images; download gives the bytes', async () => {
    const { page, errors } = await connected()
    await ui.createSession(page, { profile: 'appendix', title: 'previews' })
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
      'base64',
    )
    const md =
      '# Title\n\n- one\n- two\n\n<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">\n\n[link](javascript:window.__pwned=3)\n'
    const out = await ui.uploadFiles(page, [
      { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from(md) },
      {
        name: 'data.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ cast: [{ name: 'MARA' }, { name: 'JONAS' }], n: 2 })),
      },
      { name: 'log.txt', mimeType: 'text/plain', buffer: Buffer.from('a\nb\nc') },
      { name: 'prog.js', mimeType: 'text/javascript', buffer: Buffer.from('const x = 1\nreturn x') },
      { name: 'dot.png', mimeType: 'image/png', buffer: png },
    ])
    expect(out.ok, out.text).toBe(true)

    const mdPreview = await ui.openFile(page, '/context/notes.md')
    const rendered = mdPreview.getByTestId('preview-markdown')
    expect(await rendered.locator('h1').textContent()).toBe('Title')
    expect(await rendered.locator('li').allTextContents()).toEqual(['one', 'two'])
    expect(await rendered.locator('script, [onerror]').count()).toBe(0)
    expect(await rendered.locator('a').getAttribute('href')).toBeNull()
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    expect(await ui.previewText(mdPreview)).toBe(md)

    const json = await ui.openFile(page, '/context/data.json')
    const tree = json.getByTestId('preview-json')
    expect(await tree.locator('summary').first().textContent()).toBe('{2}')
    expect(await tree.textContent()).toContain('"MARA"')

    const text = await ui.openFile(page, '/context/log.txt')
    expect(await text.locator('[data-testid="preview-text"] .ln').allTextContents()).toEqual(['1', '2', '3'])
    const code = await ui.openFile(page, '/context/prog.js')
    expect(await code.locator('.hljs-keyword').allTextContents()).toEqual(['const', 'return'])
    expect(await code.locator('.ln').count()).toBe(2)

    const image = await ui.openFile(page, '/context/dot.png')
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="preview-image"]') as HTMLImageElement | null)?.naturalWidth === 2,
    )
    const bytes = await image.evaluate(async el =>
      Array.from(new Uint8Array(await (await fetch(el.querySelector('a[download]')!.getAttribute('href')!)).arrayBuffer())),
    )
    expect(Buffer.from(bytes).equals(png)).toBe(true)
    await stage(page, 'ui-remote', 'previews')
    expect(errors).toEqual([])
  })

  it('events: a reload resumes the stream from the seq kept in sessionStorage (Last-Event-ID), nothing missing or twice; abort stops a run', async () => {
    const { page, errors } = await connected()
    const id = await ui.createSession(page, { profile: 'appendix', title: 'resume' })
    expect((await ui.uploadFolder(page, episodes.dir)).ok).toBe(true)
    await ui.sendMessage(page, 'Write the production appendix.')
    await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
    await ui.waitStatus(page, 'idle')
    const progress = page.getByTestId('plan-progress')
    expect(await progress.getAttribute('aria-valuenow')).toBe(await progress.getAttribute('aria-valuemax'))
    const view = page.getByTestId('session-view')
    const logged = (await api<{ events: Array<{ seq: number; type: string }> }>(`/sessions/${id}/events?limit=1000`)).body.events
    const newest = logged.at(-1)!.seq
    await page.waitForFunction(
      n => Number(document.querySelector('[data-testid="session-view"]')?.getAttribute('data-last-seq')) === n,
      newest,
    )
    expect(await page.evaluate(k => sessionStorage.getItem(k), `agent-vfs-demo.seq.${id}`)).toBe(String(newest))
    const before = await shownSeqs(page)
    // Every logged event is on the timeline once: as an item, or as the result on its call's card.
    expect(before).toEqual(logged.map(e => e.seq))

    const streams: Array<string | undefined> = []
    page.on('request', r => {
      if (r.url().includes(`/sessions/${id}/stream`)) streams.push(r.headers()['last-event-id'])
    })
    await page.reload()
    await ui.openSession(page, id)
    await page.waitForFunction(
      n => Number(document.querySelector('[data-testid="session-view"]')?.getAttribute('data-last-seq')) === n,
      newest,
    )
    await page.getByTestId('feed-state').and(page.locator('[data-state="live"]')).waitFor()
    expect(streams[0]).toBe(String(newest))
    expect(await shownSeqs(page)).toEqual(before)

    // A follow-up runs on; abort stops it at its next model call.
    await ui.sendMessage(page, 'Index the characters by location.')
    await ui.waitStatus(page, 'running')
    await page.getByTestId('abort').click()
    await page.locator('[data-testid="timeline-item"][data-type="abort-requested"]').waitFor()
    await ui.waitStatus(page, 'idle')
    const after = await shownSeqs(page)
    expect(after.slice(0, before.length)).toEqual(before)
    const all = (await api<{ events: Array<{ seq: number }> }>(`/sessions/${id}/events?limit=1000`)).body.events.map(e => e.seq)
    await page.waitForFunction(
      n => Number(document.querySelector('[data-testid="session-view"]')?.getAttribute('data-last-seq')) >= n,
      all.at(-1)!,
    )
    expect(await shownSeqs(page)).toEqual(all)
    expect(await view.getAttribute('data-session-id')).toBe(id)
    expect(errors).toEqual([])
  })

  it('prompts by keyboard: a question answered by typing and Enter, an approval by Enter on "Always allow"', async () => {
    const { page, errors } = await connected()
    await ui.createSession(page, { profile: 'appendix-asking', title: 'keyboard' })
    expect((await ui.uploadFolder(page, episodes.dir)).ok).toBe(true)
    await page.getByTestId('message-text').focus()
    await page.keyboard.type('Write the production appendix.')
    await page.keyboard.press('Control+Enter')
    const question = await ui.pending(page, 'question')
    expect(await page.getByTestId('pending').getAttribute('aria-live')).toBe('assertive')
    await question.getByTestId('answer-text').focus()
    await page.keyboard.type('Season One, by keyboard')
    await page.keyboard.press('Enter')
    await question.waitFor({ state: 'detached' })
    await page.locator('[data-testid="timeline-item"][data-type="pending-answered"]', { hasText: 'Season One, by keyboard' }).waitFor()
    const approval = await ui.pending(page, 'approval')
    expect(await approval.locator('.hljs-keyword').count()).toBeGreaterThan(0)
    await approval.getByTestId('approve-always').focus()
    await page.keyboard.press('Enter')
    await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
    expect(await ui.waitStatus(page, 'idle')).toBe('idle')
    expect(errors).toEqual([])
  })

  it('a phone-sized screen: no sideways scrolling, and every control has a name', async () => {
    const { page, errors } = await connected({ width: 390, height: 844 })
    await ui.createSession(page, { profile: 'appendix', title: 'phone' })
    expect((await ui.uploadFolder(page, episodes.dir)).ok).toBe(true)
    await ui.sendMessage(page, 'Write the production appendix.')
    await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
    await ui.openFile(page, '/outputs/appendix.md')
    await page.locator('[data-testid="timeline-item"][data-type="tool-call"] summary').first().click()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll('button, a[href], input, select, textarea')]
        .filter(el => {
          const name = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent
          return !name?.trim()
        })
        .map(el => el.outerHTML.slice(0, 120)),
    )
    expect(unnamed).toEqual([])
    await stage(page, 'ui-remote', 'phone')
    expect(errors).toEqual([])
  })
})

/** Seqs of every event the timeline shows (items and the results on tool cards), in order. */
async function shownSeqs(page: Page): Promise<number[]> {
  const seqs = await page
    .getByTestId('timeline-item')
    .evaluateAll(els =>
      els.flatMap(e => [e.getAttribute('data-seq'), e.getAttribute('data-result-seq')].filter((s): s is string => !!s).map(Number)),
    )
  return seqs.sort((a, b) => a - b)
}
