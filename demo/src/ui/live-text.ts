import type { LiveDelta, SessionEvent } from '../api/types.js'

/** Text the model is generating now, shown at the end of the timeline until its stored event arrives. */
export interface LiveText {
  streamId: string
  kind: 'text' | 'reasoning'
  text: string
}

/** Applies a delta (`text.slice(0, at) + delta`: the same delta twice, or the text so far after a reconnect, changes nothing). */
export function applyDelta(live: LiveText[], d: LiveDelta): LiveText[] {
  if (d.discarded) return live.filter(l => l.streamId !== d.streamId)
  const current = live.find(l => l.streamId === d.streamId)
  const text = (current?.text ?? '').slice(0, d.at) + d.delta
  return current ? live.map(l => (l === current ? { ...l, text } : l)) : [...live, { streamId: d.streamId, kind: d.kind, text }]
}

/** Drops the live text of streams whose stored `text`/`reasoning` event came, and all of a finished execution. */
export function settleLive(live: LiveText[], events: SessionEvent[]): LiveText[] {
  if (live.length === 0) return live
  const done = new Set<string>()
  for (const e of events) {
    if ((e.type === 'text' || e.type === 'reasoning') && e.streamId) done.add(e.streamId)
    if (e.type === 'execution-end') return []
  }
  return done.size === 0 ? live : live.filter(l => !done.has(l.streamId))
}
