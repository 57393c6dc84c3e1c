import { useState } from 'preact/hooks'
import { forkAt } from '../api/changes.js'
import { ApiError, type SessionClient } from '../api/client.js'
import type { SessionEvent } from '../api/types.js'
import { ExecutionChanges } from './ExecutionChanges.js'

/** Events a session can be forked at: where a person would want to go back to and try again. */
const FORK_POINTS = new Set(['checkpoint', 'message', 'execution-end'])

/** What a timeline row offers: an execution's Changes and Undo at its end, "Fork from here" at a fork point. */
export function TimelineActions(props: {
  client: SessionClient
  sessionId: string
  event: SessionEvent
  onForked?(id: string): void
  onError(message: string): void
}) {
  const { client, sessionId, event: e } = props
  const [busy, setBusy] = useState(false)
  if (!FORK_POINTS.has(e.type)) return null
  const fork = async () => {
    setBusy(true)
    try {
      const forked = await forkAt(client, sessionId, e.seq)
      props.onForked?.(forked.id)
    } catch (error) {
      props.onError(error instanceof ApiError ? error.describe() : String((error as Error)?.message ?? error))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="row-actions">
      {e.type === 'execution-end' && <ExecutionChanges client={client} sessionId={sessionId} executionId={e.executionId} />}
      <button type="button" class="link" disabled={busy} data-testid="fork-here" data-seq={e.seq} onClick={() => void fork()}>
        Fork from here
      </button>
    </div>
  )
}
