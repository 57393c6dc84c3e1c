import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type SessionClient } from '../api/client.js'
import { followEvents, type FeedState } from '../api/feed.js'
import type { FileEntry, PendingAnswer, PendingSummary, SessionEvent, SessionRecord } from '../api/types.js'
import { Composer } from './Composer.js'
import { FilePanel, revealFolder } from './FilePanel.js'
import { LazyPreview } from './LazyPreview.js'
import { PendingPrompts, type RefusedProposal } from './PendingPrompts.js'
import { conflictsOf } from '../api/changes.js'
import { PlanChecklist } from './PlanChecklist.js'
import { Timeline } from './Timeline.js'
import { addEvents, emptyModel, type SessionModel } from './timeline-model.js'
import { applyFileChanges } from './file-changes.js'
import { TimelineActions } from './TimelineActions.js'
import { sessionLabel } from './session-label.js'
import { applyDelta, settleLive, type LiveText } from './live-text.js'

// Events after which the pending list, the record or the files may have changed.
const PENDING_EVENTS = new Set([
  'question',
  'approval-required',
  'pending-answered',
  'status',
  'execution-end',
  'session-closed',
  'session-reopened',
])

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : String((error as Error)?.message ?? error))

function feedText(s: FeedState): string {
  if (s.kind === 'live') return 'live'
  if (s.kind === 'connecting') return 'connecting…'
  if (s.kind === 'reconnecting') return `reconnecting (attempt ${s.attempt}): ${s.reason}`
  return s.error ? `stopped: ${s.error.describe()}` : 'stopped'
}

/** One open session: prompts, composer, plan, timeline, files and preview, all kept live from its event stream. */
export function SessionView({
  client,
  sessionId,
  onRecord,
  onMissing,
  onOpenSession,
}: {
  client: SessionClient
  sessionId: string
  onRecord(r: SessionRecord): void
  /** The host does not have this session (deleted, or another host's): the view should close. */
  onMissing(): void
  /** Opens another session (a fork just made). */
  onOpenSession?(id: string): void
}) {
  const [record, setRecord] = useState<SessionRecord | undefined>()
  const [model, setModel] = useState<SessionModel>(emptyModel)
  const [live, setLive] = useState<LiveText[]>([])
  const [pending, setPending] = useState<PendingSummary[]>([])
  const [refused, setRefused] = useState<RefusedProposal[]>([])
  const [files, setFiles] = useState<FileEntry[] | undefined>()
  const [filesError, setFilesError] = useState<string | undefined>()
  const [feed, setFeed] = useState<FeedState>({ kind: 'connecting' })
  const [error, setError] = useState<string | undefined>()
  const [preview, setPreview] = useState<string | undefined>()

  const refreshRecord = useCallback(async () => {
    try {
      const r = await client.getSession(sessionId)
      setRecord(r)
      onRecord(r)
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) onMissing()
      else setError(describe(e))
    }
  }, [client, sessionId])
  // Answers to GET /pending can come back out of order: only the latest asked is shown, so a list
  // served before an approval was answered cannot put its card back after a newer one took it away.
  const pendingAsked = useRef(0)
  const refreshPending = useCallback(async () => {
    const asked = ++pendingAsked.current
    try {
      const list = await client.listPending(sessionId)
      if (asked === pendingAsked.current) setPending(list)
    } catch (e) {
      // A session the host does not have is the record's to report (it closes the view).
      if (!(e instanceof ApiError && e.status === 404)) setError(describe(e))
    }
  }, [client, sessionId])
  // File changes heard lately: a list that was served before them (but arrives after) gets them too.
  const recentChanges = useRef<SessionEvent[]>([])
  const refreshFiles = useCallback(async () => {
    try {
      const listed = await client.listFiles(sessionId)
      setFiles(applyFileChanges(listed, recentChanges.current))
      setFilesError(undefined)
    } catch (e) {
      setFilesError(describe(e))
    }
  }, [client, sessionId])

  useEffect(() => {
    setModel(emptyModel())
    setRecord(undefined)
    setPending([])
    setRefused([])
    setFiles(undefined)
    recentChanges.current = []
    setPreview(undefined)
    setError(undefined)
    void refreshRecord()
    void refreshPending()
    void refreshFiles()
    const stop = new AbortController()
    void followEvents(client, sessionId, {
      signal: stop.signal,
      onState: setFeed,
      onDelta: d => setLive(l => applyDelta(l, d)),
      onEvents(events: SessionEvent[]) {
        setModel(m => addEvents(m, events))
        setLive(l => settleLive(l, events))
        if (events.some(e => PENDING_EVENTS.has(e.type))) {
          void refreshPending()
          void refreshRecord()
        }
        // The host logs every commit of the workspace: the tree follows them as they come.
        const changes = events.filter(e => e.type === 'files-changed')
        if (changes.length > 0) {
          recentChanges.current = [...recentChanges.current, ...changes].slice(-200)
          setFiles(f => applyFileChanges(f, changes))
        }
      },
    })
    return () => stop.abort()
  }, [client, sessionId])

  const act = async (f: () => Promise<unknown>): Promise<boolean> => {
    setError(undefined)
    try {
      await f()
      return true
    } catch (e) {
      setError(describe(e))
      return false
    }
  }
  const onAnswer = async (id: string, answer: PendingAnswer) => {
    setError(undefined)
    try {
      await client.answerPending(sessionId, id, answer)
      setPending(p => p.filter(x => x.id !== id))
    } catch (e) {
      // An approved proposal whose files changed since: nothing landed; the card stays, listing them.
      const conflicts = conflictsOf(e)
      const p = pending.find(x => x.id === id)
      if (conflicts && p) setRefused(r => [...r.filter(x => x.p.id !== id), { p, conflicts }])
      else setError(describe(e))
    }
    void refreshPending()
  }
  const lastEnd = [...model.items].reverse().find(i => i.kind === 'event' && i.event.type === 'execution-end')
  const canResume =
    !!lastEnd && lastEnd.kind === 'event' && lastEnd.event.type === 'execution-end' && lastEnd.event.status === 'interrupted'
  const version = files?.find(f => f.path === preview)?.version
  // A path in the timeline: a file opens in the preview; a folder unfolds in the file tree.
  const openPath = (path: string) => {
    if (!files || files.some(f => f.path === path)) setPreview(path)
    else revealFolder(path)
  }

  return (
    <div class="session-view" data-testid="session-view" data-session-id={sessionId} data-last-seq={model.lastSeq}>
      <header class="session-head">
        <h2>{record ? sessionLabel(record) : '…'}</h2>
        <p>
          <span class={`status ${record?.status ?? ''}`} data-testid="session-status" data-status={record?.status}>
            {record?.status.replace('_', ' ') ?? '…'}
          </span>{' '}
          <span class="hint">
            {record?.profile} · events:{' '}
            <span data-testid="feed-state" data-state={feed.kind}>
              {feedText(feed)}
            </span>
          </span>{' '}
          <button type="button" class="link phone-only" onClick={() => document.getElementById('sessions-heading')?.scrollIntoView()}>
            All sessions
          </button>
        </p>
      </header>
      {error && (
        <p class="note error" role="alert" data-testid="error">
          {error}{' '}
          <button type="button" class="link" onClick={() => setError(undefined)}>
            Dismiss
          </button>
        </p>
      )}
      <div class="session-grid">
        <div class="col-main">
          <PendingPrompts
            pending={pending}
            onAnswer={onAnswer}
            client={client}
            sessionId={sessionId}
            refused={refused}
            onDismiss={id => setRefused(r => r.filter(x => x.p.id !== id))}
          />
          <Composer
            status={record?.status}
            canResume={canResume}
            onSend={(text, steer) => act(() => client.sendMessage(sessionId, text, steer))}
            onAbort={async () => void (await act(() => client.abort(sessionId)))}
            onResume={async () => void (await act(() => client.resume(sessionId)))}
          />
          <PlanChecklist plan={model.plan} />
          <Timeline
            items={model.items}
            live={live}
            onOpenFile={openPath}
            extra={e => <TimelineActions client={client} sessionId={sessionId} event={e} onForked={onOpenSession} onError={setError} />}
          />
        </div>
        <div class="col-side">
          <FilePanel
            client={client}
            sessionId={sessionId}
            files={files}
            error={filesError}
            selected={preview}
            onSelect={setPreview}
            onChanged={() => void refreshFiles()}
          />
          {preview && (
            <LazyPreview
              client={client}
              sessionId={sessionId}
              path={preview}
              version={version}
              deleted={files !== undefined && !files.some(f => f.path === preview)}
              onClose={() => setPreview(undefined)}
            />
          )}
        </div>
      </div>
    </div>
  )
}
