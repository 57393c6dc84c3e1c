// re2js, loaded by the first search that needs it: not at start-up.

/** What the workspace uses of re2js. */
export type RegexEngine = Pick<typeof import('re2js'), 'RE2JS' | 'RE2JSException'>

let engine: RegexEngine | undefined
let loading: Promise<RegexEngine> | undefined

/**
 * Loads re2js once. Parsing it costs 6-9 ms (Node 24, bench `runjs.cold.js`), a tenth of a cold start
 * that never searches; so the searches (`glob`, `walk`, `grep` of every workspace view) await this
 * before they compile anything, and compiling stays synchronous.
 */
export function loadRegexEngine(): Promise<RegexEngine> {
  if (engine) return Promise.resolve(engine)
  loading ??= import('re2js').then(
    m => (engine = m),
    error => {
      loading = undefined // a failed import is tried again by the next search
      throw error
    },
  )
  return loading
}

/**
 * Gives the engine to code that compiles patterns synchronously without a search first (the agent
 * policy's globs): it imports re2js itself and hands it over here.
 */
export function provideRegexEngine(given: RegexEngine): void {
  engine ??= given
}

/** The loaded engine; a search that compiles before {@link loadRegexEngine} resolved is a bug here, said so. */
export function regexEngine(): RegexEngine {
  if (!engine) throw new Error('agent-vfs: a pattern was compiled before re2js was loaded (await loadRegexEngine() first)')
  return engine
}
