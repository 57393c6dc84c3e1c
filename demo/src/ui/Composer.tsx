import { useState } from 'preact/hooks'
import type { SessionStatus } from '../api/types.js'

/**
 * Talking to the agent: a message starts an execution (or waits as a follow-up while one runs); a
 * steer reaches the running execution at its next model call; abort stops it.
 */
export function Composer(props: {
  status: SessionStatus | undefined
  canResume: boolean
  onSend(text: string, steer: boolean): Promise<boolean>
  onAbort(): Promise<void>
  onResume(): Promise<void>
}) {
  const [message, setMessage] = useState('')
  const [steer, setSteer] = useState('')
  const closed = props.status === 'closed'
  const active = props.status === 'running' || props.status === 'waiting_input' || props.status === 'waiting_approval'
  const submit = async (text: string, isSteer: boolean, clear: () => void) => {
    if (!text.trim()) return
    if (await props.onSend(text.trim(), isSteer)) clear()
  }
  return (
    <section class="panel composer" aria-label="Messages to the agent">
      <form
        onSubmit={e => {
          e.preventDefault()
          void submit(message, false, () => setMessage(''))
        }}
      >
        <label for="message-text">{active ? 'Follow-up (runs when this execution ends)' : 'Message (starts the agent)'}</label>
        <div class="row">
          <textarea
            id="message-text"
            rows={2}
            value={message}
            disabled={closed}
            data-testid="message-text"
            placeholder={active ? 'Then, …' : 'Write the production appendix for the scripts in /context'}
            onInput={e => setMessage((e.target as HTMLTextAreaElement).value)}
            onKeyDown={e => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault()
                void submit(message, false, () => setMessage(''))
              }
            }}
          />
          <button type="submit" class="primary" disabled={closed || !message.trim()} data-testid="send-message">
            {active ? 'Queue' : 'Send'}
          </button>
        </div>
      </form>
      <form
        onSubmit={e => {
          e.preventDefault()
          void submit(steer, true, () => setSteer(''))
        }}
      >
        <label for="steer-text">Steer the running execution</label>
        <div class="row">
          <input
            id="steer-text"
            type="text"
            value={steer}
            disabled={!active}
            data-testid="steer-text"
            placeholder="e.g. also list props by episode"
            onInput={e => setSteer((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={!active || !steer.trim()} data-testid="send-steer">
            Steer
          </button>
          <button type="button" class="danger" disabled={!active} data-testid="abort" onClick={() => void props.onAbort()}>
            Abort
          </button>
          {props.canResume && !active && !closed && (
            <button type="button" data-testid="resume" onClick={() => void props.onResume()}>
              Resume
            </button>
          )}
        </div>
      </form>
      {closed && <p class="hint">This session is closed: reopen it from the list to continue.</p>}
    </section>
  )
}
