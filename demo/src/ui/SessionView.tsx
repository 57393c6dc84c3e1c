import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type SessionClient } from '../api/client.js'
import { followEvents, type FeedState } from '../api/feed.js'
import type { FileEntry, PendingAnswer, PendingSummary, SessionEvent, SessionRecord } from '../api/types.js'
import { Composer } from './Composer.js'
import { FilePanel, revealFolder } from './FilePanel.js'
import { LazyPreview } from './LazyPreview.js'
import { PendingPrompts } from './PendingPrompts.js'
import { PlanChecklist } from './PlanChecklist.js'
import { Timeline } from './Timeline.js'
import { addEvents, emptyModel, type SessionModel } from './timeline-model.js'
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
const FILE_EVENTS = new Set(['tool-result', 'checkpoint', 'execution-end', 'result-accepted'])

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
}: {
  client: SessionClient
  sessionId: string
  onRecord(r: SessionRecord): void
  /** The host does not have this session (deleted, or another host's): the view should close. */
  onMissing(): void
}) {
  const [record, setRecord] = useState<SessionRecord | undefined>()
  const [model, setModel] = useState<SessionModel>(emptyModel)
  const [live, setLive] = useState<LiveText[]>([])
  const [pending, setPending] = useState<PendingSummary[]>([])
  const [files, setFiles] = useState<FileEntry[] | undefined>()
  const [filesError, setFilesError] = useState<string | undefined>()
  const [feed, setFeed] = useState<FeedState>({ kind: 'connecting' })
  const [error, setError] = useState<string | undefined>()
  const [preview, setPreview] = useState<string | undefined>()
  const fileTimer = useRef<ReturnType<typeof setTimeout>>()

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
  const refreshPending = useCallback(async () => {
    try {
      setPending(await client.listPending(sessionId))
    } catch (e) {
      // A session the host does not have is the record's to report (it closes the view).
      if (!(e instanceof ApiError && e.status === 404)) setError(describe(e))
    }
  }, [client, sessionId])
  const refreshFiles = useCallback(async () => {
    try {
      setFiles(await client.listFiles(sessionId))
      setFilesError(undefined)
    } catch (e) {
      setFilesError(describe(e))
    }
  }, [client, sessionId])
  // A run writes many files in a burst: list them once it pauses.
  const refreshFilesSoon = useCallback(() => {
    clearTimeout(fileTimer.current)
    fileTimer.current = setTimeout(() => void refreshFiles(), 400)
  }, [refreshFiles])

  useEffect(() => {
    setModel(emptyModel())
    setRecord(undefined)
    setPending([])
    setFiles(undefined)
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
        if (events.some(e => FILE_EVENTS.has(e.type))) refreshFilesSoon()
      },
    })
    return () => {
      stop.abort()
      clearTimeout(fileTimer.current)
    }
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
    if (await act(() => client.answerPending(sessionId, id, answer))) setPending(p => p.filter(x => x.id !== id))
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
          <PendingPrompts pending={pending} onAnswer={onAnswer} />
          <Composer
            status={record?.status}
            canResume={canResume}
            onSend={(text, steer) => act(() => client.sendMessage(sessionId, text, steer))}
            onAbort={async () => void (await act(() => client.abort(sessionId)))}
            onResume={async () => void (await act(() => client.resume(sessionId)))}
          />
          <PlanChecklist plan={model.plan} />
          <Timeline items={model.items} live={live} onOpenFile={openPath} />
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
            <LazyPreview client={client} sessionId={sessionId} path={preview} version={version} onClose={() => setPreview(undefined)} />
          )}
        </div>
      </div>
    </div>
  )
}
