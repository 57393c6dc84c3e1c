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
  /** Wall-clock budget of one `grep` call, checked between batches of files. Default 2 000 ms. */
  grepMillis: number
  /** Longest accepted grep pattern. Default 500 characters. */
  patternLength: number
}

/** The defaults of {@link ToolLimits}. */
export const defaultToolLimits: Readonly<ToolLimits> = Object.freeze({
  readLines: 400,
  readBytes: 20_000,
  resultChars: 24_000,
  listEntries: 500,
  grepMatches: 200,
  grepMillis: 2_000,
  patternLength: 500,
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
