import type { ChildProcess } from 'node:child_process'

/**
 * The address a spawned server prints once it listens (`… on http://127.0.0.1:PORT`), read from its
 * stdout; rejects with everything it printed if it exits first or is not listening within `timeoutMs`.
 */
export function listeningUrl(proc: ChildProcess, timeoutMs = 90_000): Promise<string> {
  let log = ''
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${log}`)), timeoutMs)
    proc.stdout!.on('data', d => {
      log += d
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    proc.stderr!.on('data', d => (log += d))
    proc.on('exit', code => reject(new Error(`server exited ${code}: ${log}`)))
  })
}
