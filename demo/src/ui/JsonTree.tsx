/** How many children of an object or array are shown before a "more" note. */
const SHOWN = 200

/**
 * A JSON value as a collapsible tree: `<details>` per object or array (keyboard and screen readers
 * get disclosure behaviour for free). Open to `openDepth` levels.
 */
export function JsonTree({ value, openDepth = 1, label }: { value: unknown; openDepth?: number; label?: string }) {
  return (
    <div class="json-tree" role="group" aria-label={label ?? 'JSON'} data-testid="json-tree">
      <JsonNode name={undefined} value={value} depth={0} openDepth={openDepth} />
    </div>
  )
}

function JsonNode({ name, value, depth, openDepth }: { name: string | undefined; value: unknown; depth: number; openDepth: number }) {
  const key = name === undefined ? null : <span class="json-key">{name}: </span>
  if (value === null || typeof value !== 'object') {
    return (
      <div class="json-leaf">
        {key}
        <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value) ?? String(value)}</span>
      </div>
    )
  }
  const isArray = Array.isArray(value)
  const entries = isArray ? (value as unknown[]).map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>)
  // An object that names itself (name, id, path, title) shows that name while folded.
  const label = isArray
    ? undefined
    : ['name', 'id', 'path', 'title'].map(k => (value as Record<string, unknown>)[k]).find(v => typeof v === 'string')
  const summary = `${isArray ? `[${entries.length}]` : `{${entries.length}}`}${label !== undefined ? ` ${JSON.stringify(label)}` : ''}`
  return (
    <details class="json-node" open={depth < openDepth}>
      <summary>
        {key}
        <span class="json-summary">{summary}</span>
      </summary>
      <div class="json-children">
        {entries.slice(0, SHOWN).map(([k, v]) => (
          <JsonNode key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
        ))}
        {entries.length > SHOWN && <div class="json-more">… {entries.length - SHOWN} more</div>}
      </div>
    </details>
  )
}
