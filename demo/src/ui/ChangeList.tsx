import type { DiffEntry } from '../api/changes.js'
import { DiffView } from './DiffView.js'

/** "12,345 → 13,000 bytes": what a file without a line diff still shows of its change. */
const sizes = (e: DiffEntry) =>
  [e.sizeBefore, e.sizeAfter]
    .filter((n): n is number => n !== undefined)
    .map(n => n.toLocaleString('en'))
    .join(' → ') + ' bytes'

/**
 * Files added, changed, moved or deleted, each opening to its text diff (an execution's Changes, a
 * proposal's review); a file past a diff bound opens to why it has none, with its sizes and hashes.
 */
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
              {e.omitted && <span class="hint"> {sizes(e)}</span>}
            </summary>
            {e.patch && <DiffView patch={e.patch} />}
            {e.omitted && (
              <p class="hint" data-testid="diff-omitted">
                {e.omitted.message[0].toUpperCase() + e.omitted.message.slice(1)}. {sizes(e)}
                {e.hashBefore && e.hashAfter && ` (sha-256 ${e.hashBefore.slice(0, 12)}… → ${e.hashAfter.slice(0, 12)}…)`}; open the file to
                read it.
              </p>
            )}
          </details>
        </li>
      ))}
    </ul>
  )
}
