import { STATE_ROOT } from 'agent-vfs'

/**
 * Where the agent runtime keeps its own records, under the run layout's `/state` root (which the core
 * only knows as a writable root the file tools see read-only). Nothing outside `src/agent` spells these out.
 */

/** The current plan. */
export const PLAN_PATH = `${STATE_ROOT}/plan.json`
/** Saved "always allow" answers. */
export const POLICY_PATH = `${STATE_ROOT}/policy.json`
/** Pending approvals and questions, one JSON file each. */
export const PENDING_DIR = `${STATE_ROOT}/pending`
/** Execution records: `<dir>/<id>/execution.json`, `events.jsonl`, `checkpoints/`. */
export const EXECUTIONS_DIR = `${STATE_ROOT}/executions`
