import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { generateEpisodes, type EpisodeTruth } from '../../fixtures/script-appendix/generator.js'

/** A folder on disk for the UI's folder input, and what the agent should find in it. */
export interface InputFolder {
  /** The folder the test uploads (its name is the last path segment). */
  dir: string
  /** Relative paths of every file in it. */
  files: string[]
  truth: EpisodeTruth
  remove(): void
}

/**
 * Writes the script-appendix input (characters.md + episodes/episode-NN.fountain, 60 by default)
 * into `<tmp>/<name>/`, as `fixtures/script-appendix/cli.ts` does, and returns the generator's answer key.
 */
export function writeEpisodes(options: { count?: number; seed?: number; name?: string } = {}): InputFolder {
  const { files, truth } = generateEpisodes({ count: options.count ?? 60, seed: options.seed ?? 1 })
  const parent = mkdtempSync(join(tmpdir(), 'agent-vfs-demo-input-'))
  const dir = join(parent, options.name ?? 'season-one')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return { dir, files: Object.keys(files), truth, remove: () => rmSync(parent, { recursive: true, force: true }) }
}

/** Writes arbitrary files (bytes or text) into a fresh temp folder named `name`; for bad-input tests. */
export function writeFolder(name: string, files: Record<string, string | Uint8Array>): { dir: string; remove(): void } {
  const parent = mkdtempSync(join(tmpdir(), 'agent-vfs-demo-bad-'))
  const dir = join(parent, name)
  for (const [path, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), data)
  }
  return { dir, remove: () => rmSync(parent, { recursive: true, force: true }) }
}
