/**
 * The run layout: the logical roots every run sees, and where run_js archives its programs.
 * The workspace, run_js and the agent import these names; no other module spells them out. What the
 * agent runtime keeps under `/state` (plan, policy, pending actions, executions) is its own business:
 * `src/agent/state/paths.ts`.
 */

/** Read-only roots, filled by the runner before the agent starts. */
export const READ_ONLY_ROOTS = ['context', 'skills'] as const
/** Roots the agent may change. `state` is kept by the runner (plans, executions, pending actions). */
export const WRITABLE_ROOTS = ['work', 'outputs', 'state'] as const
/** Every root of a default run, in the order they are listed to a model. */
export const RUN_ROOTS = [...READ_ONLY_ROOTS, ...WRITABLE_ROOTS] as const
export type RunRootName = (typeof RUN_ROOTS)[number]

/** The root the agent runtime owns; only its own tools write here. */
export const STATE_ROOT = '/state'
/** Name of the folder run_js archives scripts and large results in, inside a writable root. */
export const RUN_JS_ARCHIVE_NAME = '.run_js'
/** Where run_js archives go on a run scope that has a writable state root. */
export const RUN_JS_ARCHIVE_DIR = `${STATE_ROOT}/${RUN_JS_ARCHIVE_NAME}`
