import type { Answer, Data } from '../guest/guest-api.js'
import type { RunJsJournalCall } from '../types.js'

/**
 * Journals written by worker threads before they were named as in-thread ones (December 2026):
 * they recorded the `Vfs` method behind each guest call (`vfs.writeFile('/a', 'x')` for
 * `vfs.write('/a', 'x')`, `vfs.stat` then `vfs.deleteFile` for `vfs.remove`) with the method's answer
 * (a write's version, a search's hits inside the archive), tool answers as JSON text, and the modules
 * a program imports as reads ahead of its first call. A replay accepts those names for the guest call
 * they stood for and gives the program what the guest function made of the answer then, so a journal
 * kept before the change still resumes, in a worker thread or in-thread. New journals never use them.
 */

/** The call names only such journals hold (the others, `vfs.stat`, `vfs.exists`, `vfs.glob`, `vfs.grep`, are shared). */
const LEGACY_ONLY: ReadonlySet<string> = new Set(['vfs.readFile', 'vfs.writeFile', 'vfs.readdir', 'vfs.deleteFile', 'vfs.rmdir'])

/** A journal holds names only a worker thread of before the change recorded. */
export function isLegacyJournal(calls: readonly RunJsJournalCall[]): boolean {
  return calls.some(c => LEGACY_ONLY.has(c.call))
}

/** The `Vfs` method and arguments a worker thread recorded then for a guest call (the first, for `vfs.remove`). */
export function legacyCall(call: string, args: readonly unknown[]): [string, unknown[]] | undefined {
  const [path, second] = args
  switch (call) {
    case 'vfs.read':
      return ['vfs.readFile', [path, 'utf8']]
    case 'vfs.readBytes':
      return ['vfs.readFile', [path]]
    case 'vfs.write': {
      const d = second as Data | undefined
      return d && typeof d === 'object' ? ['vfs.writeFile', [path, 'text' in d ? d.text : d.bytes]] : undefined
    }
    case 'vfs.list':
      return ['vfs.readdir', [path, { recursive: (second as { recursive?: unknown } | undefined)?.recursive === true }]]
    case 'vfs.glob':
      return ['vfs.glob', [path, { deadline: 0 }]]
    case 'vfs.grep':
      return ['vfs.grep', [path, { ...(second as object | undefined), deadline: 0 }]]
    case 'vfs.remove':
      return ['vfs.stat', [path]]
  }
  return undefined
}

/** The second recorded call of a `vfs.remove` whose `vfs.stat` answered `stat`. */
export function legacyRemoval(args: readonly unknown[], stat: unknown): [string, unknown[]] {
  const [path, options] = args
  if ((stat as { type?: unknown } | null)?.type !== 'directory') return ['vfs.deleteFile', [path]]
  return ['vfs.rmdir', [path, { recursive: (options as { recursive?: unknown } | undefined)?.recursive === true }]]
}

/** A read the module graph made ahead of the program's first call (a module file read as text). */
export function isLegacyModuleRead(entry: RunJsJournalCall): boolean {
  return entry.call === 'vfs.readFile' && /^\["[^"]*\.m?[jt]s","utf8"\]$/.test(entry.args)
}

/** What the guest function made of a method's recorded answer: `vfs.write` and `vfs.remove` answer nothing, searches leave the archive out. */
export function legacyAnswer(call: string, args: readonly unknown[], answer: Answer, archiveDir: string | undefined): Answer {
  if (call === 'vfs.write' || call === 'vfs.remove') return { kind: 'none' }
  if ((call !== 'vfs.glob' && call !== 'vfs.grep') || answer.kind !== 'json' || !archiveDir) return answer
  if (JSON.stringify(args).includes(archiveDir)) return answer
  const inside = (path: unknown) => typeof path === 'string' && path.startsWith(`${archiveDir}/`)
  if (call === 'vfs.glob') return Array.isArray(answer.value) ? { kind: 'json', value: answer.value.filter(p => !inside(p)) } : answer
  const found = answer.value as { matches?: unknown }
  if (!found || !Array.isArray(found.matches)) return answer
  return { kind: 'json', value: { ...found, matches: found.matches.filter((m: { path?: unknown }) => !inside(m?.path)) } }
}
