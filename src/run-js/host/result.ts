import type { RunJsError, RunJsResult } from '../types.js'

/** Characters of a large result shown inline. */
const PREVIEW_CHARS = 1000

/** A failed run. */
export function failure(error: RunJsError, logs: string[] = [], scriptPath?: string): RunJsResult {
  return { success: false, logs, error, ...(scriptPath ? { scriptPath } : {}) }
}

/** The short text a model gets instead of a result too large to return inline. */
export function preview(json: string, bytes: number, path: string | undefined): string {
  const head = json.length > PREVIEW_CHARS ? json.slice(0, PREVIEW_CHARS) + '…' : json
  const where = path ? `written to ${path}; read it with vfs.read(${JSON.stringify(path)})` : 'not archived (archiving is off)'
  return `[result truncated: ${bytes} bytes of JSON, ${where}] ${head}`
}

export const TIMEOUT = 'TimeoutError'
export const ABORT = 'AbortError'

/** The error of a run ended by its signal, with the signal's reason when it says something. */
export function abortError(signal: AbortSignal | undefined): RunJsError {
  const reason = signal?.reason
  const why =
    reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''
  return { name: ABORT, message: `run_js was aborted${why}` }
}
