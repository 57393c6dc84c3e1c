import type { SessionActor } from '../types.js'

/** The history tag of what a person does through the host: uploads, deletes, reverts, landing a branch. */
export const API_ACTOR: SessionActor = { kind: 'api' }

/** The history tag of an execution's writes (its file tools and run_js). */
export const executionActor = (executionId: string): SessionActor => ({ kind: 'execution', executionId })

/** The session actor a history change carries, if it is one (anything else: undefined). */
export function sessionActorOf(actor: unknown): SessionActor | undefined {
  if (typeof actor !== 'object' || actor === null) return undefined
  const a = actor as { kind?: unknown; executionId?: unknown; tool?: unknown }
  if (a.kind === 'execution' && typeof a.executionId === 'string') return { kind: 'execution', executionId: a.executionId }
  if (a.kind === 'mcp') return typeof a.tool === 'string' ? { kind: 'mcp', tool: a.tool } : { kind: 'mcp' }
  if (a.kind === 'api' || a.kind === 'host') return { kind: a.kind }
  return undefined
}
