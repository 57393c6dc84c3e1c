import { createServer } from 'node:net'

/**
 * Resolves when `port` can be bound on `hostname`, else rejects with a message that says what to
 * do. Checked before the server opens its store, so a second server on a busy port touches nothing.
 */
export function checkPortFree(hostname: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${hostname} is already in use (another npm run serve or npm run dev:worker?): stop it, or start this one with PORT=${port + 1}`
            : `cannot listen on ${hostname}:${port} (${error.code ?? error.message}): pick another PORT`,
        ),
      ),
    )
    probe.listen(port, hostname, () => probe.close(() => resolve()))
  })
}
