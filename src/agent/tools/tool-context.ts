import { normalizePath, type Vfs } from 'agent-vfs'

/** Size limits of the workspace tools. Every one has a default; override any of them. */
export interface ToolLimits {
  /** Lines `read_file` returns when the model gives no `limit`. Default 400. */
  readLines: number
  /** Characters of file text one `read_file` call returns at most. Default 20 000. */
  readBytes: number
  /** A tool result longer than this (JSON characters) is written to a file instead. Default 24 000. */
  resultChars: number
  /** Entries `ls` and `glob` return at most. Default 500. */
  listEntries: number
  /** Matches `grep` returns at most. Default 200. */
  grepMatches: number
  /**
   * Wall-clock budget of one `grep`, `glob` or recursive `ls` call: the search stops there and
   * returns what it found, marked truncated. Default 2 000 ms.
   */
  searchMillis: number
  /** Longest accepted grep pattern. Default 500 characters. */
  patternLength: number
  /**
   * Longest text `edit_file` may produce, in characters (UTF-16 code units), unless the file is
   * already longer (an edit may then keep its size). Checked before the new text is built, so a
   * `replace_all` cannot make the host allocate out of proportion. Default 4,000,000.
   */
  editChars: number
  /** Occurrences one `edit_file` with `replace_all` may replace. Default 50,000. */
  editReplacements: number
}

/** The defaults of {@link ToolLimits}. */
export const defaultToolLimits: Readonly<ToolLimits> = Object.freeze({
  readLines: 400,
  readBytes: 20_000,
  resultChars: 24_000,
  listEntries: 500,
  grepMatches: 200,
  searchMillis: 2_000,
  patternLength: 500,
  editChars: 4_000_000,
  editReplacements: 50_000,
})

/**
 * Which version of each file the model has seen in this execution (by `read_file`, or because it
 * wrote the file itself). `edit_file` refuses files the model has not seen at their current version.
 */
export class ReadLedger {
  private readonly versions = new Map<string, number>()

  /** Records that the model knows `path` at `version`. */
  record(path: string, version: number): void {
    this.versions.set(normalizePath(path), version)
  }

  /** The version the model last saw, or undefined if it never read the file. */
  versionOf(path: string): number | undefined {
    return this.versions.get(normalizePath(path))
  }

  /** Forgets a file (deleted or moved away), and everything below it if it was a directory. */
  forget(path: string): void {
    const p = normalizePath(path)
    for (const key of [...this.versions.keys()]) if (key === p || key.startsWith(p + '/')) this.versions.delete(key)
  }
}

/** What the workspace tools share: the workspace, the read ledger and the limits. */
export interface FileToolContext {
  vfs: Vfs
  reads: ReadLedger
  limits: ToolLimits
}

/** Builds a {@link FileToolContext} from partial options. */
export function fileToolContext(vfs: Vfs, limits?: Partial<ToolLimits>, reads = new ReadLedger()): FileToolContext {
  return { vfs, reads, limits: { ...defaultToolLimits, ...limits } }
}
