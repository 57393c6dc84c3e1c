import type { SessionRecord } from '../api/types.js'
import { KNOWN_PROFILES } from '../api/types.js'

/**
 * A session's name for people: its title, or "Untitled" with its profile and when it was made
 * (an id means nothing to a person; it stays in `data-session-id` for tools and tests).
 */
export function sessionLabel(s: Pick<SessionRecord, 'title' | 'profile' | 'createdAt'>): string {
  if (s.title) return s.title
  const profile = KNOWN_PROFILES.find(p => p.id === s.profile)?.label ?? s.profile
  const when = new Date(s.createdAt)
  const sameDay = when.toDateString() === new Date().toDateString()
  const time = sameDay ? when.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : when.toLocaleDateString()
  return `Untitled · ${profile} · ${time}`
}
