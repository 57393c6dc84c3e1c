import type { Page } from 'playwright'

/**
 * Records, in the page, the seq of every session event the page receives over HTTP: each SSE
 * message of `/sessions/:id/stream` (its `id:` line) and each event of a `GET /sessions/:id/events`
 * page. The page's own fetch is wrapped and the body teed, so the UI reads exactly what it would
 * have read. Installed before any script of the page (it runs again after each reload, starting an
 * empty record: one record per page life). Remote mode only: in this tab the API never touches fetch.
 */
const PROBE = `{
  const delivered = (globalThis.__deliveredSeqs = [])
  const original = globalThis.fetch
  globalThis.fetch = async (...args) => {
    const res = await original(...args)
    const url = new URL(typeof args[0] === 'string' ? args[0] : args[0].url, location.href)
    const stream = /\\/sessions\\/[^/]+\\/stream$/.test(url.pathname)
    const page = /\\/sessions\\/[^/]+\\/events$/.test(url.pathname)
    if (!res.ok || !res.body || (!stream && !page)) return res
    const [mine, theirs] = res.body.tee()
    ;(async () => {
      const reader = mine.pipeThrough(new TextDecoderStream()).getReader()
      let text = ''
      for (;;) {
        let chunk
        try { chunk = await reader.read() } catch { return }
        if (chunk.done) break
        text += chunk.value
        if (!stream) continue
        let end
        while ((end = text.indexOf('\\n\\n')) >= 0) {
          const block = text.slice(0, end)
          text = text.slice(end + 2)
          const id = /^id: ?(\\d+)$/m.exec(block)
          if (id) delivered.push({ via: 'stream', seq: Number(id[1]) })
        }
      }
      if (page) for (const e of JSON.parse(text).events ?? []) delivered.push({ via: 'events', seq: e.seq })
    })()
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}`

/** Installs the probe for every later load of the page's context. */
export async function installEventProbe(page: Page): Promise<void> {
  await page.addInitScript(PROBE)
}

/** The seqs this page life received so far, in order of arrival. */
export async function deliveredSeqs(page: Page): Promise<Array<{ via: 'stream' | 'events'; seq: number }>> {
  return page.evaluate('globalThis.__deliveredSeqs ?? []') as Promise<Array<{ via: 'stream' | 'events'; seq: number }>>
}
