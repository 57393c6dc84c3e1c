import type { Vfs } from 'agent-vfs'

/** What the model gets instead of a tool result that was too large to return. */
export interface SpilledResult {
  spilled: true
  /** Where the whole result is. */
  path: string
  /** Length of the whole result in characters. */
  chars: number
  /** Its beginning. */
  preview: string
  note: string
}

const PREVIEW = 2_000

/**
 * Returns `value` unchanged if it is small; otherwise writes it to `<dir>/<name>.txt|.json` and
 * returns a {@link SpilledResult} with the path and a preview, so a big result never floods the
 * model's context and is never lost.
 */
export async function spillLargeResult(vfs: Vfs, value: unknown, options: { maxChars: number; dir: string; name: string }): Promise<unknown> {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 1)
  if (text === undefined || text.length <= options.maxChars) return value
  const path = `${options.dir}/${options.name.replace(/[^A-Za-z0-9._-]/g, '_')}.${typeof value === 'string' ? 'txt' : 'json'}`
  await vfs.writeFile(path, text)
  const spilled: SpilledResult = {
    spilled: true,
    path,
    chars: text.length,
    preview: text.slice(0, PREVIEW),
    note: `The result (${text.length} characters) was too large to return and was saved to ${path}. Read parts of it with read_file (offset/limit) or search it with grep.`,
  }
  return spilled
}
