import type { Conflict } from '../api/changes.js'

/**
 * Files that changed since an execution (an Undo refused) or since a proposal's branch was made (an
 * approval refused): nothing was written, and these are why. `testId` names the list and its items
 * (`<testId>-conflicts`, `<testId>-conflict`).
 */
export function ConflictList({ conflicts, testId, what, since }: { conflicts: Conflict[]; testId: string; what: string; since: string }) {
  return (
    <div class="note error" data-testid={`${testId}-conflicts`} role="alert">
      <p>
        {what}: {conflicts.length} file(s) changed since {since}.
      </p>
      <ul>
        {conflicts.map(c => (
          <li key={c.path} data-testid={`${testId}-conflict`} data-path={c.path}>
            <code>{c.path}</code>
          </li>
        ))}
      </ul>
    </div>
  )
}
