import type { Vfs } from 'agent-vfs'

/** What the model gets instead of a tool result that was too large to return. */
export interface SpilledResult {
  /** False when the result could not be saved (quota, closed workspace): only the preview remains. */
  spilled: boolean
  /** Where the whole result is (absent when it could not be saved). */
  path?: string
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
export async function spillLargeResult(
  vfs: Vfs,
  value: unknown,
  options: { maxChars: number; dir: string; name: string },
): Promise<unknown> {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 1)
  if (text === undefined || text.length <= options.maxChars) return value
  // The name is a model-chosen tool call id: one plain, short file name, whatever it holds.
  const path = `${options.dir}/${options.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}.${typeof value === 'string' ? 'txt' : 'json'}`
  try {
    await vfs.writeFile(path, text)
  } catch (error) {
    // The tool has already run; failing to keep its result must not end the run.
    return {
      spilled: false,
      chars: text.length,
      preview: text.slice(0, PREVIEW),
      note: `The result (${text.length} characters) was too large to return and could not be saved (${error instanceof Error ? error.message : String(error)}); only its beginning is shown.`,
    } satisfies SpilledResult
  }
  const spilled: SpilledResult = {
    spilled: true,
    path,
    chars: text.length,
    preview: text.slice(0, PREVIEW),
    note: `The result (${text.length} characters) was too large to return and was saved to ${path}. Read parts of it with read_file (offset/limit) or search it with grep.`,
  }
  return spilled
}
