import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'
import type { DemoSettings } from '../api/settings.js'
import { hasSavedSettings, loadSettings, saveSettings } from '../api/settings-store.js'
import type { SessionRecord } from '../api/types.js'
import { connect, type Connection } from './connect.js'
import { ConnectionPanel } from './ConnectionPanel.js'
import { SessionList } from './SessionList.js'
import { SessionView } from './SessionView.js'

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : String((error as Error)?.message ?? error))

/** The open session lives in the URL (`#session=<id>`), so a reload reopens it. */
const sessionInHash = () => new URLSearchParams(location.hash.slice(1)).get('session') ?? undefined
function setSessionInHash(id: string | undefined) {
  const url = new URL(location.href)
  url.hash = id ? `session=${id}` : ''
  history.replaceState(null, '', url)
}

/** Whether the connected host has session `id`: in the first page of its list, or asked for by id. */
async function hasSession(c: Connection, page: { items: SessionRecord[]; next?: string }, id: string): Promise<boolean> {
  if (page.items.some(s => s.id === id)) return true
  if (!page.next) return false
  return c.client.getSession(id).then(
    () => true,
    e => !(e instanceof ApiError && e.status === 404),
  )
}

/** The demo: connection, sessions, and the open session. */
export function App() {
  const [settings, setSettings] = useState<DemoSettings>(loadSettings)
  const [conn, setConn] = useState<Connection | undefined>()
  const [status, setStatus] = useState('not connected')
  const [busy, setBusy] = useState(false)
  const [sessions, setSessions] = useState<SessionRecord[] | undefined>()
  const [current, setCurrent] = useState<string | undefined>(sessionInHash)
  const [error, setError] = useState<string | undefined>()
  // The open session as of now, for `open` (a callback made once) to check against the new host.
  const currentRef = useRef(current)
  currentRef.current = current

  const choose = useCallback((id: string | undefined) => {
    currentRef.current = id
    setCurrent(id)
    setSessionInHash(id)
  }, [])

  const open = useCallback(async (next: DemoSettings) => {
    setBusy(true)
    setError(undefined)
    setStatus('connecting…')
    setSessions(undefined)
    setConn(old => (old?.close(), undefined))
    try {
      const c = await connect(next)
      const page = await c.client.listSessions()
      setSessions(page.items)
      // Another host (In this tab ↔ Remote) does not know the session that was open: let it go
      // before its view asks the new host for it.
      const shown = currentRef.current
      if (shown && !(await hasSession(c, page, shown))) choose(undefined)
      setConn(c)
      setStatus(`connected (${c.label})`)
    } catch (e) {
      setStatus('not connected')
      setError(describe(e))
    } finally {
      setBusy(false)
    }
  }, [])

  // A reload reconnects as this browser last connected (a fresh browser waits for "Connect").
  useEffect(() => {
    if (hasSavedSettings() && (settings.mode === 'tab' || settings.remote?.token)) void open(settings)
  }, [])

  const refreshSessions = useCallback(async () => {
    if (!conn) return
    try {
      setSessions((await conn.client.listSessions()).items)
    } catch (e) {
      setError(describe(e))
    }
  }, [conn])

  const run = async (f: () => Promise<unknown>) => {
    setError(undefined)
    try {
      await f()
    } catch (e) {
      setError(describe(e))
    }
    await refreshSessions()
  }

  return (
    <div class="app">
      <header class="app-head">
        <h1>agent-vfs demo</h1>
        <p class="hint">A persistent workspace for an agent: files, plan, run_js, approvals.</p>
      </header>
      <ConnectionPanel
        settings={settings}
        status={status}
        connected={conn?.label}
        busy={busy}
        onConnect={s => {
          saveSettings(s)
          setSettings(s)
          void open(s)
        }}
      />
      {error && (
        <p class="note error" role="alert" data-testid="app-error">
          {error}
        </p>
      )}
      {conn && (
        <main class={`layout${current ? ' has-session' : ''}`}>
          <aside class="col-sessions">
            <SessionList
              sessions={sessions}
              current={current}
              onRefresh={() => void refreshSessions()}
              onCreate={(profile, title) =>
                run(async () => {
                  const s = await conn.client.createSession(profile, title || undefined)
                  choose(s.id)
                })
              }
              onOpen={choose}
              onClose={id => run(() => conn.client.closeSession(id))}
              onReopen={id => run(() => conn.client.reopenSession(id))}
              onDelete={id =>
                run(async () => {
                  // Leave the session first, so its view stops following a stream that is about to end.
                  if (current === id) choose(undefined)
                  await conn.client.deleteSession(id)
                })
              }
            />
          </aside>
          <section class="col-session" aria-label="Open session">
            {current ? (
              <SessionView
                key={`${conn.label}:${current}`}
                client={conn.client}
                sessionId={current}
                onRecord={r => setSessions(list => list?.map(s => (s.id === r.id ? r : s)))}
                onMissing={() => {
                  choose(undefined)
                  void refreshSessions()
                }}
                onOpenSession={id => {
                  void refreshSessions()
                  choose(id)
                }}
              />
            ) : (
              <p class="hint empty-session">Create a session or open one from the list.</p>
            )}
          </section>
        </main>
      )}
    </div>
  )
}
