import type { StoredEntry } from 'agent-vfs'
import type { EventLine } from '../types.js'

// What a fork across stores reads of its original (fork-copy.ts copies it, the Worker serves it).

/** One page of the workspace at the fork's point: entries in path order after the cursor, and where the next page starts. */
export interface ForkPage {
  entries: StoredEntry[]
  next?: string
}

/** How the fork's host reads the original (the Worker: RPC to the original's Durable Object). */
export interface ForkSource {
  page(cursor: string): Promise<ForkPage>
  events(after: number, limit: number): Promise<EventLine[]>
  /** The fork is complete: the original drops its pin. */
  release(): Promise<void>
}

/** Events per page copied from the original's log. */
export const FORK_EVENT_PAGE = 500
