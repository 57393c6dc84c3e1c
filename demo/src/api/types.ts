/**
 * The wire types of the session HTTP API, taken from the library's own declarations (type-only:
 * nothing of the library enters the UI bundle through this file).
 */
export type { SessionRecord, SessionEvent, SessionMessage, SessionStatus, Page, LiveDelta } from 'agent-vfs/session'
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

/**
 * The profiles every demo host offers (the API has no list): DEMO_PROFILES, with a short label for
 * the menu (it must fit the sessions column) and a sentence shown under it.
 */
export const KNOWN_PROFILES = [
  { id: DEMO_PROFILES.appendix, label: 'Script appendix', description: 'Runs on its own to the end.' },
  {
    id: DEMO_PROFILES.appendixAsking,
    label: 'Appendix, with questions',
    description: 'Asks for the title, and for approval before each run_js program.',
  },
  {
    id: DEMO_PROFILES.programQuestion,
    label: 'Program asks',
    description: 'One run_js program asks for the title and waits for the answer.',
  },
  {
    id: DEMO_PROFILES.proposeNotes,
    label: 'Proposes its writes',
    description: 'Writes review notes; nothing lands until you approve the diff.',
  },
] as const
