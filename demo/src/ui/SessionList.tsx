import { useState } from 'preact/hooks'
import { KNOWN_PROFILES, type SessionRecord } from '../api/types.js'
import { sessionLabel } from './session-label.js'

const STATUS_TEXT: Record<SessionRecord['status'], string> = {
  idle: 'idle',
  running: 'running',
  waiting_input: 'waiting for an answer',
  waiting_approval: 'waiting for approval',
  closed: 'closed',
}

/** The owner's sessions: create one (with a profile), open, close, reopen, delete. */
export function SessionList(props: {
  sessions: SessionRecord[] | undefined
  current?: string
  onCreate(profile: string, title: string): Promise<void>
  onOpen(id: string): void
  onClose(id: string): Promise<void>
  onReopen(id: string): Promise<void>
  onDelete(id: string): Promise<void>
  onRefresh(): void
}) {
  const [profile, setProfile] = useState<string>(KNOWN_PROFILES[0].id)
  const [title, setTitle] = useState('')
  const [confirming, setConfirming] = useState<string | undefined>()
  return (
    <section class="panel sessions" aria-labelledby="sessions-heading">
      <div class="panel-head">
        <h2 id="sessions-heading">Sessions</h2>
        <button type="button" aria-label="Refresh sessions" data-testid="refresh-sessions" onClick={props.onRefresh}>
          ↻
        </button>
      </div>
      <form
        class="new-session"
        onSubmit={e => {
          e.preventDefault()
          void props.onCreate(profile, title.trim()).then(() => setTitle(''))
        }}
      >
        <label>
          Profile
          <select value={profile} data-testid="new-session-profile" onChange={e => setProfile((e.target as HTMLSelectElement).value)}>
            {KNOWN_PROFILES.map(p => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <p class="profile-description">{KNOWN_PROFILES.find(p => p.id === profile)?.description}</p>
        <label>
          Title
          <input
            type="text"
            value={title}
            maxLength={200}
            placeholder="optional"
            data-testid="new-session-title"
            onInput={e => setTitle((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="primary" data-testid="new-session">
          New session
        </button>
      </form>
      {!props.sessions ? (
        <p class="hint">Loading…</p>
      ) : props.sessions.length === 0 ? (
        <p class="hint">No sessions yet.</p>
      ) : (
        <ul class="session-list" data-testid="session-list">
          {props.sessions.map(s => {
            const label = sessionLabel(s)
            return (
              <li
                key={s.id}
                class={`session-item${s.id === props.current ? ' current' : ''}`}
                data-testid="session-item"
                data-session-id={s.id}
                data-status={s.status}
              >
                <button
                  type="button"
                  class="session-open"
                  data-testid="session-open"
                  aria-current={s.id === props.current ? 'true' : undefined}
                  aria-label={`Open ${label}`}
                  onClick={() => props.onOpen(s.id)}
                >
                  <span class="session-title">{label}</span>
                  <span class={`status ${s.status}`}>
                    {s.profile} · {STATUS_TEXT[s.status]}
                  </span>
                </button>
                <div class="session-actions">
                  {s.status === 'closed' ? (
                    <button
                      type="button"
                      data-testid="session-reopen"
                      aria-label={`Reopen ${label}`}
                      onClick={() => void props.onReopen(s.id)}
                    >
                      Reopen
                    </button>
                  ) : (
                    <button
                      type="button"
                      data-testid="session-close"
                      aria-label={`Close ${label}`}
                      onClick={() => void props.onClose(s.id)}
                    >
                      Close
                    </button>
                  )}
                  {confirming === s.id ? (
                    <>
                      <button
                        type="button"
                        class="danger"
                        data-testid="session-delete-confirm"
                        aria-label={`Really delete ${label}`}
                        onClick={() => void props.onDelete(s.id).finally(() => setConfirming(undefined))}
                      >
                        Really delete
                      </button>
                      <button type="button" data-testid="session-delete-cancel" onClick={() => setConfirming(undefined)}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      data-testid="session-delete"
                      aria-label={`Delete ${label}`}
                      onClick={() => setConfirming(s.id)}
                    >
                      Delete
                    </button>
                  )}
                </div>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
