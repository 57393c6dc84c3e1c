import { useLayoutEffect, useRef } from 'preact/hooks'
import type { SessionEvent } from '../api/types.js'
import { Code } from './Code.js'
import { JsonTree } from './JsonTree.js'
import type { TimelineItem, ToolItem } from './timeline-model.js'
import type { LiveText } from './live-text.js'

type OpenFile = (path: string) => void

const WORKSPACE_PATH = /^\/(context|skills|work|outputs|state)\//

/** Paths of workspace files a tool result points to (archived scripts, large results saved to files). */
function filesIn(output: unknown): Array<{ label: string; path: string }> {
  if (!output || typeof output !== 'object') return []
  const o = output as Record<string, unknown>
  const out: Array<{ label: string; path: string }> = []
  for (const [key, label] of [
    ['scriptPath', 'program'],
    ['resultPath', 'full result'],
    ['path', 'full result'],
  ] as const) {
    const v = o[key]
    if (typeof v === 'string' && WORKSPACE_PATH.test(v)) out.push({ label, path: v })
  }
  return out
}

function FileLink({ path, label, onOpen }: { path: string; label?: string; onOpen: OpenFile }) {
  return (
    <button type="button" class="link" data-testid="file-link" data-path={path} onClick={() => onOpen(path)}>
      {label ? `${label}: ` : ''}
      {path}
    </button>
  )
}

/**
 * The session's events in order: tool calls with their inputs and results, plan updates,
 * checkpoints, approvals and questions, rejections and corrections. New items are announced politely.
 */
export function Timeline({
  items,
  live = [],
  onOpenFile,
  extra,
}: {
  items: TimelineItem[]
  live?: LiveText[]
  onOpenFile: OpenFile
  /** What a row shows besides the event (an execution's Changes and Undo, "fork from here"). */
  extra?: (e: SessionEvent) => preact.ComponentChildren
}) {
  const list = useRef<HTMLOListElement>(null)
  const pinned = useRef(true)
  // Follow new items while the reader is at the bottom; leave them where they are once they scroll up.
  useLayoutEffect(() => {
    const el = list.current
    if (el && pinned.current) el.scrollTop = el.scrollHeight
  }, [items.length, live.reduce((n, l) => n + l.text.length, 0)])
  const onScroll = () => {
    const el = list.current
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
  }
  return (
    <section class="panel timeline" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      {items.length === 0 && <p class="hint">Nothing yet: upload inputs, then send a message to start the agent.</p>}
      <ol
        class="events"
        data-testid="timeline"
        aria-labelledby="timeline-heading"
        aria-live="polite"
        aria-relevant="additions"
        tabIndex={0}
        ref={list}
        onScroll={onScroll}
      >
        {items.map(item =>
          item.kind === 'tool' ? (
            <ToolCard key={item.seq} item={item} onOpenFile={onOpenFile} />
          ) : (
            <EventRow key={item.seq} event={item.event} onOpenFile={onOpenFile} extra={extra} />
          ),
        )}
        {/* What the model is writing now; its stored event replaces it. */}
        {live.map(l => (
          <li key={l.streamId} class={`item ${l.kind} live`} data-testid="timeline-live" data-kind={l.kind} data-stream-id={l.streamId}>
            {l.text}
            <span class="cursor" aria-hidden="true">
              ▍
            </span>
          </li>
        ))}
      </ol>
    </section>
  )
}

/** Workspace paths in a sentence (`see /outputs.`), without the punctuation that ends it. */
const PATH_IN_TEXT = /(\/(?:context|skills|work|outputs|state)(?:\/[\w.\-/]*[\w\-/])?)(?!\w)/g

/** Text with every workspace path in it a link (a file opens, a folder unfolds in the tree). */
function TextWithPaths({ text, onOpen }: { text: string; onOpen: OpenFile }) {
  const parts = text.split(PATH_IN_TEXT)
  return <>{parts.map((part, i) => (i % 2 === 1 ? <FileLink key={i} path={part.replace(/\/$/, '')} onOpen={onOpen} /> : part))}</>
}

const STATE_TEXT = {
  running: '… running',
  waiting: '‖ waiting for approval',
  asking: '‖ waiting for an answer',
  ok: '✓ done',
  failed: '✗ failed',
} as const

function ToolCard({ item, onOpenFile }: { item: ToolItem; onOpenFile: OpenFile }) {
  const r = item.result
  const waiting = item.waitingFor ? (item.waitingOn === 'question' ? 'asking' : 'waiting') : undefined
  const state = r ? (r.ok ? 'ok' : 'failed') : (waiting ?? 'running')
  const input = item.input as Record<string, unknown> | undefined
  const output = r?.output as Record<string, unknown> | undefined
  const isRunJs = item.toolName === 'run_js'
  return (
    <li
      class={`item tool ${state}`}
      data-testid="timeline-item"
      data-seq={item.seq}
      data-type="tool-call"
      data-result-seq={r?.seq}
      data-tool={item.toolName}
      data-state={state}
    >
      <details open={isRunJs && (state === 'running' || state === 'asking')}>
        <summary>
          <span class="badge">{item.toolName}</span>{' '}
          {isRunJs && typeof input?.description === 'string' ? input.description : summarizeInput(item.input)}
          <span class={`state ${state}`}>{STATE_TEXT[state]}</span>
        </summary>
        <div class="tool-body">
          <h4>Input</h4>
          {state === 'waiting' ? (
            <p class="hint">Shown in the approval above: approve or deny it there.</p>
          ) : isRunJs && typeof input?.code === 'string' ? (
            <Code code={input.code} language="javascript" lineNumbers label="run_js program" />
          ) : (
            <JsonTree value={item.input} label="Tool input" />
          )}
          {r && (
            <>
              <h4>Result</h4>
              {r.error && (
                <p class="note error">
                  {r.error.code}: {r.error.message}
                </p>
              )}
              {isRunJs && output && typeof output === 'object' && 'success' in output ? (
                <>
                  {Array.isArray(output.logs) && output.logs.length > 0 && (
                    <>
                      <h5>Logs</h5>
                      <pre class="logs">{output.logs.map(l => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}</pre>
                    </>
                  )}
                  <JsonTree value={output.result} label="run_js result" />
                </>
              ) : (
                r.output !== undefined && <JsonTree value={r.output} label="Tool result" />
              )}
              {filesIn(r.output).map(f => (
                <FileLink key={f.path} {...f} onOpen={onOpenFile} />
              ))}
            </>
          )}
        </div>
      </details>
    </li>
  )
}

function summarizeInput(input: unknown): string {
  if (!input || typeof input !== 'object') return ''
  const o = input as Record<string, unknown>
  for (const k of ['path', 'question', 'summary', 'pattern']) if (typeof o[k] === 'string') return String(o[k]).slice(0, 120)
  if (Array.isArray(o.steps)) return `${o.steps.length} steps`
  return ''
}

function EventRow({
  event: e,
  onOpenFile,
  extra,
}: {
  event: SessionEvent
  onOpenFile: OpenFile
  extra?: (e: SessionEvent) => preact.ComponentChildren
}) {
  const row = (cls: string, body: preact.ComponentChildren) => (
    <li class={`item ${cls}`} data-testid="timeline-item" data-seq={e.seq} data-type={e.type}>
      {body}
      {extra?.(e)}
    </li>
  )
  switch (e.type) {
    case 'message':
      return row(
        'message',
        <p>
          <span class="badge">{e.mode === 'steer' ? 'you (steer)' : 'you'}</span> {e.text}
        </p>,
      )
    case 'text':
      return row(
        'text',
        <p>
          <span class="badge">agent</span> <TextWithPaths text={e.text} onOpen={onOpenFile} />
        </p>,
      )
    case 'reasoning':
      return row(
        'reasoning',
        <p>
          <span class="badge">thinking</span> {e.text}
        </p>,
      )
    case 'model-call':
      return row(
        'meta model-call',
        <p>
          Model call {e.call}: {e.usage.inputTokens} in, {e.usage.outputTokens} out
          {e.usage.cachedInputTokens ? ` (${e.usage.cachedInputTokens} cached)` : ''}, {e.finishReason}
          {e.retries > 0 ? `, after ${e.retries} retr${e.retries === 1 ? 'y' : 'ies'}` : ''}
        </p>,
      )
    case 'model-retry':
      return row(
        'meta',
        <p>
          Model call {e.call} failed{e.statusCode ? ` (${e.statusCode})` : ''}: retrying in {Math.round(e.delayMs)} ms
        </p>,
      )
    case 'execution-start':
      return row(
        'meta',
        <p>
          Execution {e.executionId} {e.resumed ? 'resumed' : 'started'}
        </p>,
      )
    case 'window-start':
      return row(
        'meta window',
        <p>
          Window {e.window} ({e.reason}
          {e.planRevision ? `, from plan revision ${e.planRevision}` : ''})
        </p>,
      )
    case 'plan-updated':
      return row(
        'plan-update',
        <p>
          <span class="badge">plan</span> revision {e.plan.revision}
          {e.completed ? `: completed “${e.completed}”` : ''}
        </p>,
      )
    case 'checkpoint':
      return row(
        'checkpoint',
        <p>
          <span class="badge">checkpoint</span> revision {e.revision} <FileLink path={e.path} onOpen={onOpenFile} />
        </p>,
      )
    case 'approval-required':
      return row(
        'waiting',
        <p>
          <span class="badge">approval</span> {e.toolName}: {e.reason}
        </p>,
      )
    case 'question':
      return row(
        'waiting',
        <p>
          <span class="badge">question</span> {e.question}
        </p>,
      )
    case 'pending-answered':
      return row(
        'answered',
        <p>
          <span class="badge">answered</span> {describeAnswer(e.answer)}
        </p>,
      )
    case 'result-rejected':
      return row(
        'rejected',
        <>
          <p>
            <span class="badge">result rejected</span> {e.problems.length} problem(s): the agent corrects them
          </p>
          <ul>
            {e.problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </>,
      )
    case 'result-accepted':
      return row(
        'accepted',
        <details>
          <summary>
            <span class="badge">result accepted</span>
          </summary>
          <JsonTree value={e.result} label="Accepted result" />
        </details>,
      )
    case 'execution-end':
      return row(
        `end ${e.status}`,
        <p>
          Execution {e.executionId} {e.status}
          {e.error ? `: ${e.error.code}: ${e.error.message}` : ''}
        </p>,
      )
    case 'error':
      return row(
        'failed',
        <p class="note error">
          {e.code}: {e.message}
        </p>,
      )
    case 'status':
      return row('meta status', <p>Session {e.status.replace('_', ' ')}</p>)
    case 'steer-delivered':
      return row(
        'meta',
        <p>
          Steer message {e.n} delivered to {e.executionId}
        </p>,
      )
    case 'abort-requested':
      return row('meta', <p>Abort requested for {e.executionId}</p>)
    case 'session-created':
      return row('meta', <p>Session created ({e.profile})</p>)
    case 'session-closed':
      return row('meta', <p>Session closed</p>)
    case 'session-reopened':
      return row('meta', <p>Session reopened</p>)
    case 'session-forked':
      return row(
        'meta',
        <p>
          Forked from session {e.from} at event {e.fromSeq}
        </p>,
      )
    case 'files-changed':
      return row(
        'meta files',
        <p>
          {e.changes.length} file(s){' '}
          {e.by.kind === 'execution' ? `changed by ${e.by.executionId}` : e.by.kind === 'api' ? 'changed by you' : 'changed'}:{' '}
          {e.changes
            .slice(0, 3)
            .map(c => `${c.op === 'deleted' ? '−' : c.op === 'added' ? '+' : '~'}${c.path}`)
            .join(', ')}
          {e.changes.length > 3 ? ', …' : ''}
        </p>,
      )
    default:
      return row('meta', <p>{(e as { type: string }).type}</p>)
  }
}

function describeAnswer(answer: unknown): string {
  const a = answer as { decision?: string; answer?: string; message?: string } | undefined
  if (a?.decision)
    return `${a.decision === 'always' ? 'always allowed' : a.decision === 'approve' ? 'approved' : 'denied'}${a.message ? `: ${a.message}` : ''}`
  if (typeof a?.answer === 'string') return `“${a.answer}”`
  return JSON.stringify(answer)
}
