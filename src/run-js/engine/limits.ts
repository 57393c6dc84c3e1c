import type { RunJsLimits } from '../types.js'

/** Limits with every default filled in. */
export type ResolvedLimits = Required<RunJsLimits>

const MIB = 1024 * 1024
/** One WebAssembly page. */
export const WASM_PAGE = 64 * 1024
/** The QuickJS wasm declares its imported memory as min 256 pages (16 MiB), max 32768 (2 GiB). */
const MIN_PAGES = 256
const MAX_PAGES = 32768

/** The limits a run gets when none are given (`interruptBudget` 0 means 100 × `timeMs`). */
export const DEFAULT_LIMITS: Readonly<ResolvedLimits> = Object.freeze({
  memoryBytes: 64 * MIB,
  stackBytes: 64 * 1024,
  timeMs: 10_000,
  interruptBudget: 0, // 0: derived from timeMs
  logChars: 64 * 1024,
  inlineResultChars: 16 * 1024,
  programBytes: 1024 * 1024,
  writeBytes: 64 * MIB,
  writeFiles: 10_000,
  modules: 64,
  moduleBytes: 4 * MIB,
  importDepth: 16,
})

/** Interrupt checks allowed per ms of `timeMs` when no budget is given. */
export const INTERRUPTS_PER_MS = 100

/** Fills defaults and rejects limits that cannot hold, with a message that says what is allowed. */
export function resolveLimits(limits: RunJsLimits = {}): ResolvedLimits {
  const out = { ...DEFAULT_LIMITS }
  for (const [key, value] of Object.entries(limits) as Array<[keyof RunJsLimits, number | undefined]>) {
    if (value === undefined) continue
    if (!(key in DEFAULT_LIMITS)) throw new TypeError(`run_js: unknown limit "${key}" (known: ${Object.keys(DEFAULT_LIMITS).join(', ')})`)
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new RangeError(`run_js: limits.${key} must be a positive number, got ${String(value)}`)
    out[key] = Math.floor(value)
  }
  const pages = Math.ceil(out.memoryBytes / WASM_PAGE)
  if (pages < MIN_PAGES || pages > MAX_PAGES) {
    throw new RangeError(
      `run_js: limits.memoryBytes must be between 16 MiB and 2 GiB (the QuickJS wasm's own bounds), got ${out.memoryBytes}`,
    )
  }
  if (out.stackBytes < 8 * 1024 || out.stackBytes > 1024 * 1024) {
    throw new RangeError(
      `run_js: limits.stackBytes must be between 8 KiB and 1 MiB, got ${out.stackBytes}; above ~64 KiB deep JSON can overflow the host stack`,
    )
  }
  if (out.programBytes > 16 * MIB) throw new RangeError(`run_js: limits.programBytes must be at most 16 MiB, got ${out.programBytes}`)
  if (out.interruptBudget === 0) out.interruptBudget = out.timeMs * INTERRUPTS_PER_MS
  return out
}

/**
 * Pages of the capped memory for a byte limit. It starts at its maximum and never grows:
 * quickjs-emscripten-core reads some results through heap views that a growth detaches (50,000
 * concurrent host calls failed with "detached ArrayBuffer" and leaked guest objects). One of them is
 * `runtime.executePendingJobs()`: when a job grows the memory, the job's context pointer is read from a
 * detached view as `undefined`, the library wraps a fresh context (`QTS_NewContext`) that nobody
 * disposes, and `JS_FreeRuntime` aborts with "Assertion failed: list_empty(&rt->gc_obj_list)"
 * (quickjs-emscripten issues 235 and 269; test/run-js/faults-suite.ts). Untouched pages cost
 * address space, not RSS.
 */
export function memoryPages(memoryBytes: number): { initial: number; maximum: number } {
  const pages = Math.max(MIN_PAGES, Math.ceil(memoryBytes / WASM_PAGE))
  return { initial: pages, maximum: pages }
}
