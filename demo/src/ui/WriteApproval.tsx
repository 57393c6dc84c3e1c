import { createTwoFilesPatch } from 'diff'
import { useEffect, useState } from 'preact/hooks'
import type { SessionClient } from '../api/client.js'
import { DiffView } from './DiffView.js'

/** Tools whose approval is a change of one file: the person sees it as a diff. */
export const WRITE_TOOLS = new Set(['write_file', 'edit_file'])

/**
 * A proposed write shown as what it would change: `write_file` against the file as it is now (all
 * added for a new file), `edit_file` as the replaced text against its replacement.
 */
export function WriteApproval({
  client,
  sessionId,
  toolName,
  input,
}: {
  client: SessionClient
  sessionId: string
  toolName: string
  input: unknown
}) {
  const i = (input ?? {}) as { path?: unknown; content?: unknown; old_string?: unknown; new_string?: unknown }
  const path = typeof i.path === 'string' ? i.path : '(no path)'
  const [current, setCurrent] = useState<string | undefined>(toolName === 'write_file' ? undefined : '')
  useEffect(() => {
    if (toolName !== 'write_file') return
    client
      .readFile(sessionId, path)
      .then(b => b.text())
      .then(setCurrent, () => setCurrent(''))
  }, [client, sessionId, path, toolName])
  if (current === undefined) return <p class="hint">Loading {path}…</p>
  const [before, after] =
    toolName === 'write_file' ? [current, String(i.content ?? '')] : [String(i.old_string ?? ''), String(i.new_string ?? '')]
  const patch = createTwoFilesPatch(path, path, before, after, '', '', { context: 3 })
  return (
    <div data-testid="write-approval" data-path={path}>
      <p>
        <code>{path}</code> {toolName === 'write_file' && current === '' ? '(new file)' : ''}
      </p>
      <DiffView patch={patch} />
    </div>
  )
}
