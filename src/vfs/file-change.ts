import { VfsError } from '../contract/errors.js'
import type { CommitRecord, StoredChange } from '../contract/history.js'
import type { ChangeActor, FileChange, HistoryEntry } from './history-types.js'
import { mimeTypeOf } from './mime.js'

/** The public form of one stored change (history.ts in the contract): the actor parsed, a media type for files. */
export function toFileChange(change: StoredChange): FileChange {
  const out: FileChange = {
    path: change.path,
    op: change.op,
    kind: change.kind,
    versionBefore: change.versionBefore,
    versionAfter: change.version,
    sizeBefore: change.sizeBefore,
    size: change.size,
    time: change.time,
  }
  if (change.hashBefore !== undefined) out.hashBefore = change.hashBefore
  if (change.hashAfter !== undefined) out.hashAfter = change.hashAfter
  if (change.kind === 'file') out.mediaType = mimeTypeOf(change.path)
  if (change.actor !== undefined) out.actor = parseActor(change.actor)
  return out
}

/** The changes of a commit just made, as its `onChange` notice reports them. */
export function fileChanges(record: CommitRecord, version: number): FileChange[] {
  return record.changes.map(c => toFileChange({ ...c, version, time: record.time }))
}

/** Stored changes grouped into commits, oldest first. */
export function toHistoryEntries(changes: readonly StoredChange[]): HistoryEntry[] {
  const out: HistoryEntry[] = []
  for (const c of changes) {
    const last = out[out.length - 1]
    if (last?.version === c.version) last.changes.push(toFileChange(c))
    else out.push({ version: c.version, time: c.time, changes: [toFileChange(c)] })
  }
  return out
}

/** Largest actor tag, as JSON, a write may carry. */
export const MAX_ACTOR_BYTES = 1024

/** The stored form of an actor tag. */
export function actorJson(actor: ChangeActor): string {
  const json = JSON.stringify(actor)
  if (typeof json !== 'string' || json.length > MAX_ACTOR_BYTES)
    throw new VfsError('EINVAL', undefined, `an actor tag must be a string or a flat JSON object of at most ${MAX_ACTOR_BYTES} characters`)
  return json
}

function parseActor(json: string): ChangeActor | undefined {
  try {
    return JSON.parse(json) as ChangeActor
  } catch {
    return json
  }
}
