import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'

/** A bad input folder, with a message that says what is wrong and what to do. */
export class InputError extends Error {
  override readonly name = 'InputError'
}

/**
 * Reads a folder in the script-appendix format: `characters.md` at its top and `*.fountain`
 * episodes anywhere below it (e.g. `episodes/episode-01.fountain`). Returns the files as the
 * generator does: `characters.md` and `episodes/<name>.fountain`.
 */
export function readInputFolder(dir: string): Record<string, string> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`--input: ${dir} is not a folder. Give a folder with characters.md and *.fountain episodes.`)
  const charactersPath = join(dir, 'characters.md')
  if (!existsSync(charactersPath)) throw new InputError(`--input: ${dir} has no characters.md. Add one with lines like "- MARA VOSS: THE STRANGER, MARA".`)
  const characters = readFileSync(charactersPath, 'utf8')
  if (!/^- [^:\n]+(:.*)?$/m.test(characters)) throw new InputError(`--input: ${charactersPath} lists no characters. Each needs a line "- NAME: ALIAS, ALIAS".`)
  const files: Record<string, string> = { 'characters.md': characters }
  const seen = new Map<string, string>()
  for (const path of fountainFiles(dir)) {
    const name = basename(path)
    if (seen.has(name)) throw new InputError(`--input: two episodes are named ${name} (${seen.get(name)} and ${path}). Rename one.`)
    seen.set(name, path)
    const text = readFileSync(path, 'utf8')
    if (!/^# Episode \d+: .+/.test(text)) throw new InputError(`--input: ${path} does not start with "# Episode N: Title".`)
    files[`episodes/${name}`] = text
  }
  if (seen.size === 0) throw new InputError(`--input: ${dir} has no *.fountain episode files.`)
  return files
}

function fountainFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...fountainFiles(full))
    else if (entry.isFile() && entry.name.endsWith('.fountain')) out.push(full)
  }
  return out.sort()
}
