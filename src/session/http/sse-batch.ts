/**
 * Writes an event stream's text so that what is written while a write is in flight goes out
 * together in the next one: a catch-up of a thousand events leaves in a few chunks instead of a
 * thousand (each write costs a round through the runtime's stream, dearest on workerd), while a
 * live event still leaves at once. The producer waits once `maxPending` characters are queued.
 */
export function batchingWriter(write: (text: string) => Promise<unknown>, maxPending = 1 << 20) {
  let pending = ''
  let inFlight: Promise<void> | undefined
  let failed: { error: unknown } | undefined
  const flush = async () => {
    try {
      while (pending !== '') {
        const text = pending
        pending = ''
        await write(text)
      }
    } catch (error) {
      failed = { error }
    } finally {
      inFlight = undefined
    }
  }
  return {
    async write(text: string): Promise<void> {
      if (failed) throw failed.error
      pending += text
      inFlight ??= flush()
      if (pending.length >= maxPending) await inFlight
    },
    /** Resolves when everything written is out (rejects if a write failed). */
    async end(): Promise<void> {
      await inFlight
      if (failed) throw failed.error
    },
  }
}

/** One SSE message; `data` is one line of JSON (stored event lines hold no newline). */
export const sseMessage = (id: string, event: string, data: string) => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`
