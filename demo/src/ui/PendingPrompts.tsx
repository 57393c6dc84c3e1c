import { useState } from 'preact/hooks'
import type { PendingAnswer, PendingSummary } from '../api/types.js'
import type { DiffEntry } from '../api/changes.js'
import { ChangeList } from './ChangeList.js'
import { Code } from './Code.js'
import { JsonTree } from './JsonTree.js'
import { WRITE_TOOLS, WriteApproval } from './WriteApproval.js'
import type { SessionClient } from '../api/client.js'

/**
 * The approvals and questions the session waits on. The execution is suspended until each is
 * answered; the region is announced to screen readers as soon as one appears.
 */
export function PendingPrompts({
  pending,
  onAnswer,
  client,
  sessionId,
}: {
  pending: PendingSummary[]
  onAnswer(id: string, answer: PendingAnswer): Promise<void>
  /** To show a proposed write as a diff against the file as it is. */
  client?: SessionClient
  sessionId?: string
}) {
  return (
    <section class="pending" aria-label="Waiting for you" data-testid="pending" aria-live="assertive">
      {pending.map(p => (
        <PendingCard key={p.id} p={p} onAnswer={onAnswer} client={client} sessionId={sessionId} />
      ))}
    </section>
  )
}

function PendingCard({
  p,
  onAnswer,
  client,
  sessionId,
}: {
  p: PendingSummary
  onAnswer(id: string, answer: PendingAnswer): Promise<void>
  client?: SessionClient
  sessionId?: string
}) {
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const send = async (answer: PendingAnswer) => {
    setBusy(true)
    try {
      await onAnswer(p.id, answer)
    } finally {
      setBusy(false)
    }
  }
  const headingId = `pending-${p.id}`
  if (p.kind === 'question') {
    return (
      <div
        class="pending-card question"
        role="group"
        aria-labelledby={headingId}
        data-testid="pending-item"
        data-pending-id={p.id}
        data-kind="question"
      >
        <h3 id={headingId}>The agent asks: {p.question}</h3>
        {p.options && p.options.length > 0 && (
          <div class="options" role="group" aria-label="Suggested answers">
            {p.options.map(o => (
              <button type="button" key={o} disabled={busy} data-testid="answer-option" onClick={() => send({ answer: o })}>
                {o}
              </button>
            ))}
          </div>
        )}
        <form
          class="row"
          onSubmit={e => {
            e.preventDefault()
            if (text.trim()) void send({ answer: text.trim() })
          }}
        >
          <label class="grow">
            <span class="visually-hidden">Your answer</span>
            <input
              type="text"
              value={text}
              placeholder="Your answer"
              data-testid="answer-text"
              onInput={e => setText((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" disabled={busy || !text.trim()} data-testid="answer-submit">
            Answer
          </button>
        </form>
      </div>
    )
  }
  const input = p.input as { code?: unknown; description?: unknown } | undefined
  // An ended execution's proposal (writes: 'propose'): the review is the diff of its branch; it lands as one commit or not at all.
  const proposal = (p as PendingSummary & { proposal?: { branch: string; diff: { entries: DiffEntry[] } } }).proposal
  return (
    <div
      class="pending-card approval"
      role="group"
      aria-labelledby={headingId}
      data-testid="pending-item"
      data-pending-id={p.id}
      data-kind="approval"
    >
      <h3 id={headingId}>
        Approve <code>{p.toolName}</code>?
      </h3>
      {p.reason && <p class="hint">{p.reason}</p>}
      {proposal ? (
        <div data-testid="proposal-review" data-branch={proposal.branch}>
          {proposal.diff.entries.length === 0 ? <p class="hint">No files changed.</p> : <ChangeList entries={proposal.diff.entries} />}
        </div>
      ) : WRITE_TOOLS.has(p.toolName) && client && sessionId ? (
        <WriteApproval client={client} sessionId={sessionId} toolName={p.toolName} input={p.input} />
      ) : p.toolName === 'run_js' && typeof input?.code === 'string' ? (
        <>
          {typeof input.description === 'string' && <p>{input.description}</p>}
          <Code code={input.code} language="javascript" label="Program to approve" />
        </>
      ) : (
        <JsonTree value={p.input} openDepth={2} label="Tool input" />
      )}
      <div class="row">
        <button type="button" class="primary" disabled={busy} data-testid="approve-once" onClick={() => send({ decision: 'approve' })}>
          Approve once
        </button>
        {!proposal && (
          <button type="button" disabled={busy} data-testid="approve-always" onClick={() => send({ decision: 'always' })}>
            Always allow
          </button>
        )}
        <button type="button" class="danger" disabled={busy} data-testid="deny" onClick={() => send({ decision: 'deny' })}>
          Deny
        </button>
      </div>
    </div>
  )
}
