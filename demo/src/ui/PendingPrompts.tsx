import { useState } from 'preact/hooks'
import type { PendingAnswer, PendingSummary } from '../api/types.js'
import type { Conflict, DiffEntry } from '../api/changes.js'
import { ChangeList } from './ChangeList.js'
import { ConflictList } from './ConflictList.js'
import { Code } from './Code.js'
import { JsonTree } from './JsonTree.js'
import { WRITE_TOOLS, WriteApproval } from './WriteApproval.js'
import type { SessionClient } from '../api/client.js'

/** A proposal approved after files it changed were changed since: nothing landed; its card stays to say why. */
export interface RefusedProposal {
  p: PendingSummary
  conflicts: Conflict[]
}

/**
 * The approvals and questions the session waits on. The execution is suspended until each is
 * answered; the region is announced to screen readers as soon as one appears.
 */
export function PendingPrompts({
  pending,
  onAnswer,
  client,
  sessionId,
  refused = [],
  onDismiss,
}: {
  pending: PendingSummary[]
  onAnswer(id: string, answer: PendingAnswer): Promise<void>
  /** To show a proposed write as a diff against the file as it is. */
  client?: SessionClient
  sessionId?: string
  /** Refused approvals of proposals, shown with their conflicts until dismissed. */
  refused?: RefusedProposal[]
  onDismiss?(id: string): void
}) {
  return (
    <section class="pending" aria-label="Waiting for you" data-testid="pending" aria-live="assertive">
      {pending
        .filter(p => !refused.some(r => r.p.id === p.id))
        .map(p => (
          <PendingCard key={p.id} p={p} onAnswer={onAnswer} client={client} sessionId={sessionId} />
        ))}
      {refused.map(r => (
        <PendingCard key={r.p.id} p={r.p} onAnswer={onAnswer} conflicts={r.conflicts} onDismiss={onDismiss} />
      ))}
    </section>
  )
}

function PendingCard({
  p,
  onAnswer,
  client,
  sessionId,
  conflicts,
  onDismiss,
}: {
  p: PendingSummary
  onAnswer(id: string, answer: PendingAnswer): Promise<void>
  client?: SessionClient
  sessionId?: string
  conflicts?: Conflict[]
  onDismiss?(id: string): void
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
  const proposed = proposal?.diff.entries.filter(e => e.kind === 'file') ?? []
  return (
    <div
      class="pending-card approval"
      role="group"
      aria-labelledby={headingId}
      data-testid="pending-item"
      data-pending-id={p.id}
      data-kind="approval"
      data-outcome={conflicts ? 'conflicts' : undefined}
    >
      <h3 id={headingId}>
        {conflicts ? (
          <>
            Not applied: <code>{p.toolName}</code>
          </>
        ) : (
          <>
            Approve <code>{p.toolName}</code>?
          </>
        )}
      </h3>
      {p.reason && !conflicts && <p class="hint">{p.reason}</p>}
      {proposal ? (
        <div data-testid="proposal-review" data-branch={proposal.branch}>
          {/* Files only, as an execution's Changes: a folder's entry is implied by its files. */}
          {proposed.length === 0 ? <p class="hint">No files changed.</p> : <ChangeList entries={proposed} />}
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
      {conflicts ? (
        <>
          <ConflictList conflicts={conflicts} testId="proposal" what="Nothing was applied" since="the proposal was made" />
          {proposal && (
            <p class="hint">
              The changes stay in the branch <code>{proposal.branch}</code>, to review or commit there.
            </p>
          )}
          <div class="row">
            <button type="button" data-testid="dismiss-proposal" onClick={() => onDismiss?.(p.id)}>
              Dismiss
            </button>
          </div>
        </>
      ) : (
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
      )}
    </div>
  )
}
