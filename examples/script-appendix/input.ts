import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative } from 'node:path'

/** A bad input folder, with a message that says what is wrong and what to do. */
export class InputError extends Error {
  override readonly name = 'InputError'
}

/**
 * Reads a folder in the script-appendix format: `characters.md` at its top and `*.fountain`
 * episodes anywhere below it (e.g. `episodes/episode-01.fountain`). Returns the files as the
 * generator does: `characters.md` and `episodes/<name>.fountain`. Every file read must be UTF-8
 * (as the demo's upload requires); other files are not read, and their paths (relative to `dir`)
 * are pushed to `skipped` so the caller can say which were left out.
 */
export function readInputFolder(dir: string, skipped: string[] = []): Record<string, string> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`--input: ${dir} is not a folder. Give a folder with characters.md and *.fountain episodes.`)
  const charactersPath = join(dir, 'characters.md')
  if (!existsSync(charactersPath)) throw new InputError(`--input: ${dir} has no characters.md. Add one with lines like "- MARA VOSS: THE STRANGER, MARA".`)
  const characters = readUtf8(charactersPath)
  if (!/^- [^:\n]+(:.*)?$/m.test(characters)) throw new InputError(`--input: ${charactersPath} lists no characters. Each needs a line "- NAME: ALIAS, ALIAS".`)
  const files: Record<string, string> = { 'characters.md': characters }
  const seen = new Map<string, string>()
  for (const path of fountainFiles(dir, dir, skipped)) {
    const name = basename(path)
    if (seen.has(name)) throw new InputError(`--input: two episodes are named ${name} (${seen.get(name)} and ${path}). Rename one.`)
    seen.set(name, path)
    const text = readUtf8(path)
    if (!/^# Episode \d+: .+/.test(text)) throw new InputError(`--input: ${path} does not start with "# Episode N: Title".`)
    files[`episodes/${name}`] = text
  }
  if (seen.size === 0) throw new InputError(`--input: ${dir} has no *.fountain episode files.`)
  return files
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The file as text, refused when it is not UTF-8 (a Latin-1 script would reach the agent garbled). */
function readUtf8(path: string): string {
  try {
    return utf8.decode(readFileSync(path))
  } catch {
    throw new InputError(`--input: ${path} is not UTF-8 text. Save it as UTF-8 and run again.`)
  }
}

function fountainFiles(dir: string, top: string, skipped: string[]): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...fountainFiles(full, top, skipped))
    else if (entry.isFile() && entry.name.endsWith('.fountain')) out.push(full)
    else if (full !== join(top, 'characters.md')) skipped.push(relative(top, full))
  }
  return out.sort()
}
