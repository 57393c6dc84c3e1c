import type { Vfs } from '../vfs/types.js'
import type { Stop } from './engine/clock.js'
import type { ResolvedLimits } from './engine/limits.js'
import type { DispatchOptions } from './host/dispatch.js'
import type { BoundTool } from './host/tools.js'
import type { RunJsError } from './types.js'

// What a program run (program-run.ts) takes from its runner and gives back: the contract between the
// engine half of a run and run.ts, apart from the engine code itself.

/** What a program run needs from its runner. */
export interface ProgramEnv {
  limits: ResolvedLimits
  tools: ReadonlyMap<string, BoundTool>
  vfs?: Vfs
  /** The workspace's synchronous text reader, if it has one: decided once per runner. */
  readText?: (path: string) => string | undefined
  /** Where the runner archives programs: the guest's own searches leave it out (see guest-api.ts). */
  archiveDir?: string
  elsewhere?: Pick<DispatchOptions, 'determinism' | 'remote'> // a run journaled by another thread's host side (host/dispatch.ts)
}

/** How the guest's program ended. */
export type ProgramOutcome =
  | { kind: 'ok'; json: string }
  | { kind: 'error'; error: RunJsError }
  | { kind: 'stopped'; stop: Stop }
  /** An exception escaped wasm into the host (native stack overflow, wasm abort): the instance is poisoned. */
  | { kind: 'host'; error: unknown }
  /** A call asks a person: the program is parked (see {@link ProgramRun.quiesce} and host/journal.ts). */
  | { kind: 'suspended'; call: string; request: unknown }

/** What the result JSON is when the program returned `undefined` (JSON is never empty). */
export const UNDEFINED_RESULT = ''

/**
 * Largest value crossing into or out of the guest at once: it is copied into the capped memory (unchecked by quickjs-emscripten)
 * and becomes a QuickJS string there, so it needs well under the whole cap.
 */
export function maxCrossingBytes(memoryBytes: number): number {
  return Math.floor(memoryBytes / 4)
}
