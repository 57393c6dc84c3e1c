import { useState } from 'preact/hooks'
import { executionChanges, undoExecution, type Conflict, type DiffEntry } from '../api/changes.js'
import { ApiError, type SessionClient } from '../api/client.js'
import { ChangeList } from './ChangeList.js'
import { ConflictList } from './ConflictList.js'

const describe = (error: unknown) => (error instanceof ApiError ? error.describe() : String((error as Error)?.message ?? error))

/**
 * The Changes of one execution (files added, changed, deleted, with their text diffs) and its Undo:
 * one commit that puts every file back, or, when someone changed a file since, nothing written and
 * the conflicts listed.
 */
export function ExecutionChanges({ client, sessionId, executionId }: { client: SessionClient; sessionId: string; executionId: string }) {
  const [entries, setEntries] = useState<DiffEntry[] | undefined>()
  const [busy, setBusy] = useState(false)
  const [undo, setUndo] = useState<{ ok: true; files: number } | { ok: false; conflicts: Conflict[] } | undefined>()
  const [error, setError] = useState<string | undefined>()
  const run = async (f: () => Promise<void>) => {
    setBusy(true)
    setError(undefined)
    try {
      await f()
    } catch (e) {
      setError(describe(e))
    } finally {
      setBusy(false)
    }
  }
  const load = () => run(async () => setEntries(await executionChanges(client, sessionId, executionId)))
  return (
    <div class="execution-changes" data-testid="execution-changes" data-execution-id={executionId}>
      <div class="row">
        <button type="button" disabled={busy} data-testid="show-changes" onClick={() => void load()}>
          {entries ? 'Refresh changes' : 'Changes'}
        </button>
        <button
          type="button"
          disabled={busy}
          data-testid="undo-execution"
          onClick={() =>
            void run(async () => {
              const result = await undoExecution(client, sessionId, executionId)
              setUndo(result)
              if (result.ok) setEntries(await executionChanges(client, sessionId, executionId))
            })
          }
        >
          Undo
        </button>
      </div>
      {error && (
        <p class="note error" role="alert">
          {error}
        </p>
      )}
      {undo?.ok === true && (
        <p class="note" data-testid="undo-result" role="status">
          Undone: {undo.files} file change(s) put back in one commit.
        </p>
      )}
      {undo?.ok === false && <ConflictList conflicts={undo.conflicts} testId="undo" what="Nothing was undone" since="this execution" />}
      {entries && entries.length === 0 && <p class="hint">No files changed.</p>}
      {entries && entries.length > 0 && <ChangeList entries={entries} />}
    </div>
  )
}
