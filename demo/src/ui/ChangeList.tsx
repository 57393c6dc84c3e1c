import type { DiffEntry } from '../api/changes.js'
import { DiffView } from './DiffView.js'

/** Files added, changed, moved or deleted, each opening to its text diff (an execution's Changes, a proposal's review). */
export function ChangeList({ entries }: { entries: DiffEntry[] }) {
  return (
    <ul class="change-list" data-testid="change-list">
      {entries.map(e => (
        <li key={e.path} data-testid="change-entry" data-path={e.path} data-status={e.status}>
          <details>
            <summary>
              <span class={`badge change ${e.status}`}>{e.status}</span> <code>{e.path}</code>
              {e.added !== undefined && (
                <span class="hint">
                  {' '}
                  +{e.added} −{e.removed}
                </span>
              )}
              {e.binary && <span class="hint"> binary, {e.sizeAfter ?? e.sizeBefore ?? 0} bytes</span>}
            </summary>
            {e.patch && <DiffView patch={e.patch} />}
          </details>
        </li>
      ))}
    </ul>
  )
}
