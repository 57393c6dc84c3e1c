import { useCallback, useRef, useState } from 'react'
import type { SessionApiError, SessionApiSchemas, SessionClient } from 'agent-vfs/client'

/** What {@link useSend} returns. */
export interface SendControls {
  /** Sends a message (a task, a follow-up; `steer: true` hands it to the running execution). Resolves to the stored message. */
  send(text: string, options?: { steer?: boolean }): Promise<SessionApiSchemas['SentMessage']>
  /** True while a send is in flight. */
  sending: boolean
  /** The last send's failure, cleared by the next send. */
  error?: SessionApiError
}

/** Sends messages to a session; what they start shows in {@link useSession}'s view as its events arrive. */
export function useSend(client: SessionClient, sessionId: string): SendControls {
  const [inFlight, setInFlight] = useState(0)
  const [error, setError] = useState<SessionApiError>()
  // Sends overlap (a steer while a task is sent): `sending` is true while any is in flight.
  const count = useRef(0)
  const send = useCallback(
    async (text: string, options: { steer?: boolean } = {}) => {
      setError(undefined)
      setInFlight(++count.current)
      try {
        return await client.api.sendMessage({ params: { id: sessionId }, body: { text, ...(options.steer ? { steer: true } : {}) } })
      } catch (e) {
        setError(e as SessionApiError)
        throw e
      } finally {
        setInFlight(--count.current)
      }
    },
    [client, sessionId],
  )
  return { send, sending: inFlight > 0, ...(error ? { error } : {}) }
}
