import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../../src/session/index.js'
import { applySessionEvent, createSessionClient, emptySessionView, type ObservedEvent } from '../../src/client/index.js'
import { expectContiguous, season } from '../session/harness.js'

// agent-vfs/client in Chromium: its Web-standard parts (fetch with a streamed upload body, FormData,
// TextDecoderStream, the SSE reader) against a session app served in the page (the demo's in-tab host
// does the same), through the client's `fetch` option.
it('in chromium: typed calls, an upload with progress, observe to the end of a run with a question and an approval, a SessionView', async () => {
  const secret = 'browser-secret-browser-secret-0123456789'
  const host = createSessionHost({
    store: memoryStore(),
    agents: { asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true }) },
  })
  const app = createSessionApp(host, { auth: { secret }, heartbeatMs: 200 })
  const client = createSessionClient({
    baseUrl: 'http://in-page.test',
    token: await mintToken(secret, 'ana'),
    fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init))),
  })
  try {
    const { id } = await client.api.createSession({ body: { profile: 'asking' } })
    const progress: number[] = []
    await client.upload(
      id,
      Object.entries(season()).map(([path, data]) => ({ path, data })),
      { onProgress: p => progress.push(p.loaded) },
    )
    expect(progress.length).toBeGreaterThan(0)
    await client.api.sendMessage({ params: { id }, body: { text: APPENDIX_INSTRUCTIONS } })
    const events: ObservedEvent[] = []
    let view = emptySessionView()
    for await (const e of client.observe(id)) {
      events.push(e)
      view = applySessionEvent(view, e)
      if (e.type === 'question') await client.api.answerPending({ params: { id, pendingId: e.pendingId }, body: { answer: 'Season One' } })
      if (e.type === 'approval-required')
        await client.api.answerPending({ params: { id, pendingId: e.pendingId }, body: { decision: 'always' } })
      if (e.type === 'execution-end' && e.status !== 'suspended') break
    }
    expectContiguous(events as never)
    expect(view.executions.get('e0001')?.status).toBe('completed')
    expect((await client.download(id, '/outputs/appendix.md')).text()).toMatch(/^# Season One/)
    expect(view.files.has('/outputs/appendix.md')).toBe(true)
    expect(await client.api.getSession({ params: { id: 's' + '0'.repeat(32) } }).catch(e => e)).toMatchObject({
      status: 404,
      code: 'not-found',
    })
  } finally {
    await host.stop()
  }
}, 120_000)
