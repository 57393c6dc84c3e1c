/**
 * The wire types of the session HTTP API, taken from the library's own declarations (type-only:
 * nothing of the library enters the UI bundle through this file).
 */
export type { SessionRecord, SessionEvent, SessionMessage, SessionStatus, Page } from 'agent-vfs/session'
import { DEMO_PROFILES } from './settings.js'

export type { Plan, PlanStep, StepStatus, PendingSummary, PendingAnswer } from 'agent-vfs/agent'

/** One entry of `GET /sessions/:id/files`. */
export interface FileEntry {
  path: string
  size: number
  mtime: number
  version: number
  mimeType: string
}

/** The profiles every demo host offers (the API has no list): DEMO_PROFILES, with a label for people. */
export const KNOWN_PROFILES = [
  { id: DEMO_PROFILES.appendix, label: 'Script appendix' },
  { id: DEMO_PROFILES.appendixAsking, label: 'Script appendix (asks a question, approves run_js)' },
] as const
