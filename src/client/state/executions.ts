import type { EventOf, ObservedEvent } from '../events.js'

/** One execution (one task's run, across its windows and resumes) as the client knows it. */
export interface ExecutionView {
  id: string
  status: EventOf<'execution-end'>['status']
  instructions: string
  startedAt: number
  /** When it last ended (a suspension ends a run, not the execution: the status says which). */
  endedAt?: number
  /** How often it resumed (after an answer, an abort, a server that died). */
  resumes: number
  error?: { code: string; message: string }
}
/** The session's executions by id, oldest first (a Map keeps insertion order). Immutable. */
export type ExecutionsState = ReadonlyMap<string, ExecutionView>

/** The executions after `event`: `execution-start` opens or resumes one, `execution-end` sets its status. */
export function applyExecutionEvent(state: ExecutionsState, event: ObservedEvent): ExecutionsState {
  if (event.type === 'execution-start') {
    const known = state.get(event.executionId)
    const view: ExecutionView = known
      ? { ...known, status: 'running', resumes: known.resumes + 1 }
      : { id: event.executionId, status: 'running', instructions: event.instructions, startedAt: event.at, resumes: 0 }
    return new Map(state).set(event.executionId, view)
  }
  if (event.type === 'execution-end') {
    const known = state.get(event.executionId)
    if (!known) return state
    const { error: _old, ...rest } = known
    const view: ExecutionView = { ...rest, status: event.status, endedAt: event.at, ...(event.error ? { error: event.error } : {}) }
    return new Map(state).set(event.executionId, view)
  }
  return state
}

/** The execution that runs now (or waits suspended), if any. */
export function currentExecution(state: ExecutionsState): ExecutionView | undefined {
  let last: ExecutionView | undefined
  for (const e of state.values()) last = e
  return last && (last.status === 'running' || last.status === 'suspended') ? last : undefined
}
