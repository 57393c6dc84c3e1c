import { ApiError, type SessionClient } from './client.js'
import type { SessionRecord } from './types.js'

/** One file of a diff (`GET …/diff`). */
export interface DiffEntry {
  path: string
  status: 'added' | 'changed' | 'deleted' | 'moved'
  from?: string
  kind: 'file' | 'dir'
  binary: boolean
  patch?: string
  added?: number
  removed?: number
  sizeBefore?: number
  sizeAfter?: number
  /** A text file past a diff bound: no patch, and why (docs/limits.md#diffs). */
  omitted?: { reason: 'size' | 'edits' | 'time' | 'budget'; message: string }
  hashBefore?: string
  hashAfter?: string
}

/** A file a revert could not undo: someone changed it since. */
export interface Conflict {
  path: string
  expected: number
  found: number
  message: string
}

/** The conflicts of a refused revert or proposal (a 409 that lists them), else undefined. */
export function conflictsOf(error: unknown): Conflict[] | undefined {
  return error instanceof ApiError && error.status === 409 ? (error.body as { conflicts?: Conflict[] })?.conflicts : undefined
}

/** What an execution changed outside /state (its Changes view). */
export async function executionChanges(client: SessionClient, sessionId: string, executionId: string): Promise<DiffEntry[]> {
  const res = await client.request(`/sessions/${sessionId}/diff`, { query: { execution: executionId } })
  const diff = (await res.json()) as { entries: DiffEntry[] }
  return diff.entries.filter(e => e.kind === 'file' && !e.path.startsWith('/state/'))
}

/** Undoes an execution: the files it changed, or the conflicts when something changed since (nothing written). */
export async function undoExecution(
  client: SessionClient,
  sessionId: string,
  executionId: string,
): Promise<{ ok: true; files: number } | { ok: false; conflicts: Conflict[] }> {
  try {
    const res = await client.request(`/sessions/${sessionId}/executions/${executionId}/revert`, { method: 'POST' })
    return { ok: true, files: ((await res.json()) as { changes: unknown[] }).changes.length }
  } catch (error) {
    const conflicts = conflictsOf(error)
    if (conflicts) return { ok: false, conflicts }
    throw error
  }
}

/** Forks the session as it was when event `seq` was logged: the new session. */
export async function forkAt(client: SessionClient, sessionId: string, seq: number): Promise<SessionRecord> {
  const res = await client.request(`/sessions/${sessionId}/fork`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ at: { seq } }),
  })
  return (await res.json()) as SessionRecord
}
