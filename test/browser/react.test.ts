import { createElement, StrictMode, Suspense, useEffect } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { folderEntries, type SessionClient } from '../../src/client/index.js'
import {
  useEvents,
  useFiles,
  usePending,
  useSend,
  useSession,
  type PendingControls,
  type SendControls,
  type SessionState,
} from '../../src/react/index.js'
import { sessionInPage } from './session-in-page.js'

// agent-vfs/react in Chromium with real React (react-dom/client, strict mode) against a session host
// served in the page: the appendix job with a question and an approval, answered through the hooks,
// the component unmounted and mounted again mid-run, and a Suspense boundary around the first load.

/** What the rendered hooks last returned, for the test to read and drive. */
interface Seen {
  session?: SessionState
  files?: string[]
  pending?: PendingControls
  send?: SendControls
  eventCount?: number
}

function SessionPanel({ client, id, seen }: { client: SessionClient; id: string; seen: Seen }) {
  const session = useSession(client, id)
  const files = useFiles(client, id)
  const pending = usePending(client, id)
  const send = useSend(client, id)
  const events = useEvents(client, id)
  useEffect(() => {
    Object.assign(seen, { session, files: folderEntries(files, '/outputs'), pending, send, eventCount: events.length })
  })
  return createElement('p', { id: 'status' }, `${session.status} ${session.ready ? 'ready' : 'loading'} ${pending.items.length} pending`)
}

function mount(element: ReturnType<typeof createElement>): { root: Root; node: HTMLElement } {
  const node = document.createElement('div')
  document.body.append(node)
  const root = createRoot(node)
  root.render(createElement(StrictMode, null, element))
  return { root, node }
}

it('in chromium: the hooks follow the appendix job, answer its question and approval, and resume after a remount', async () => {
  const { host, client, sessionId: id } = await sessionInPage()
  try {
    let seen: Seen = {}
    let { root, node } = mount(createElement(SessionPanel, { client, id, seen }))
    await expect.poll(() => seen.session?.ready, { timeout: 20_000 }).toBe(true)
    expect(seen.files).toEqual([])

    await seen.send!.send(APPENDIX_INSTRUCTIONS)
    await expect.poll(() => seen.pending?.items[0]?.kind, { timeout: 30_000 }).toBe('question')
    expect(node.textContent).toMatch(/waiting_input ready 1 pending/)
    await seen.pending!.answer(seen.pending!.items[0]!.pendingId, 'Season One')

    await expect.poll(() => seen.pending?.items[0]?.kind, { timeout: 30_000 }).toBe('approval')
    // Unmounted while the job waits, mounted again: the new hooks replay the log and follow it on.
    root.unmount()
    node.remove()
    seen = {}
    ;({ root, node } = mount(createElement(SessionPanel, { client, id, seen })))
    await expect.poll(() => seen.pending?.items[0]?.kind, { timeout: 30_000 }).toBe('approval')
    await seen.pending!.decide(seen.pending!.items[0]!.pendingId, 'always')

    await expect.poll(() => seen.session?.executions.get('e0001')?.status, { timeout: 60_000 }).toBe('completed')
    await expect.poll(() => seen.files, { timeout: 10_000 }).toContain('appendix.md')
    expect(seen.pending!.items).toEqual([])
    const texts = seen.session!.conversation.filter(t => t.kind === 'text')
    expect(texts.length).toBeGreaterThan(0)
    expect(texts.every(t => t.kind === 'text' && !t.live)).toBe(true)
    expect(seen.eventCount).toBeGreaterThan(50)
    expect((await client.download(id, '/outputs/appendix.md')).text()).toMatch(/^# Season One/)
    root.unmount()
    node.remove()
  } finally {
    await host.stop()
  }
}, 120_000)

function ReadyView({ client, id }: { client: SessionClient; id: string }) {
  const session = useSession(client, id, { suspense: true })
  return createElement('p', null, `loaded ${session.lastSeq} ${session.ready}`)
}

it('in chromium: with suspense: true the first render suspends until the log up to now is loaded', async () => {
  const { host, client, sessionId: id } = await sessionInPage()
  try {
    const shown: string[] = []
    const observer = new MutationObserver(() => shown.push(document.body.lastElementChild?.textContent ?? ''))
    observer.observe(document.body, { subtree: true, childList: true, characterData: true })
    const { root, node } = mount(
      createElement(Suspense, { fallback: createElement('p', null, 'fallback') }, createElement(ReadyView, { client, id })),
    )
    // session-created and the upload's files-changed: the log as it was when the view mounted.
    await expect.poll(() => node.textContent, { timeout: 20_000 }).toBe('loaded 2 true')
    observer.disconnect()
    // The view rendered only once loaded: before, the fallback (never a view that says `false`).
    expect(shown.filter(t => t !== '' && !/^loaded 2 true$/.test(t))).toEqual(['fallback'])
    root.unmount()
  } finally {
    await host.stop()
  }
}, 60_000)

function Missing({ client }: { client: SessionClient }) {
  const session = useSession(client, 's' + '0'.repeat(32))
  return createElement('p', null, session.error ? `error ${session.error.status} ${session.error.code}` : 'no error yet')
}

it('in chromium: a session that is not there shows as the hook error (not a retry loop)', async () => {
  const { host, client } = await sessionInPage()
  try {
    const { root, node } = mount(createElement(Missing, { client }))
    await expect.poll(() => node.textContent, { timeout: 20_000 }).toBe('error 404 not-found')
    root.unmount()
  } finally {
    await host.stop()
  }
}, 60_000)
