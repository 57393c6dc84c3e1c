import { isWithin, normalizePath, withActor, type RunVfs } from 'agent-vfs'
import { API_ACTOR } from '../records/actors.js'
import type { HostContext } from '../context.js'
import { SessionError } from '../errors.js'
import type { SessionHost, UploadFile } from '../host-api.js'
import type { HostParts } from './host-parts.js'
import { idOf } from '../session-ref.js'
import type { SessionRecord } from '../types.js'
import { storedBytes } from '../records/usage.js'
import { UPLOAD_ROOTS } from '../records/workspace.js'

/** The host's file uploads: writes and deletes in an open session's workspace. */
export function fileMethods(parts: HostParts): Pick<SessionHost, 'writeFiles' | 'deleteFile' | 'recordUsage'> {
  return {
    async writeFiles(session, files) {
      const record = await parts.requireOpen(session)
      const sessionId = idOf(session)
      // Opened fresh (another process may have written), then written as the API's.
      return writeUpload(
        parts.ctx,
        record,
        () => parts.open(sessionId).then(() => parts.workspaceAs(sessionId, record.owner, API_ACTOR)),
        files,
      )
    },

    async deleteFile(session, path) {
      const record = await parts.requireOpen(session)
      return deleteUpload(parts.ctx, record, (await parts.open(idOf(session))).ws, path)
    },

    async recordUsage(sessionId) {
      const { record, ws } = await parts.open(sessionId)
      await parts.ctx.recordBytes(record.owner, sessionId, storedBytes(ws.usage()))
    },
  }
}

/** What one change adds to history besides the content it replaced and its path (the workspace's estimate, history-meter.ts). */
const HISTORY_ROW_BYTES = 176

/** A path a person may write: normalised, under an upload root (never /state), not a root itself. */
export function uploadPath(path: unknown): string {
  if (typeof path !== 'string') throw new SessionError('invalid', 'a file path must be a string')
  let p: string
  try {
    p = normalizePath(path.startsWith('/') ? path : `/${path}`)
  } catch (error) {
    throw new SessionError('invalid', `bad file path ${JSON.stringify(path.slice(0, 200))}: ${(error as Error).message}`)
  }
  if (!UPLOAD_ROOTS.some(root => isWithin(p, root) && p !== root))
    throw new SessionError('invalid', `files go under ${UPLOAD_ROOTS.join(', ')}, not ${JSON.stringify(p.slice(0, 200))}`)
  return p
}

/** Writes files into an open session's workspace in one commit, within the owner's byte quota. */
async function writeUpload(ctx: HostContext, record: SessionRecord, open: () => Promise<RunVfs>, files: UploadFile[]): Promise<string[]> {
  const sessionId = record.id
  if (!Array.isArray(files) || files.length === 0) throw new SessionError('invalid', 'give at least one file')
  const paths = files.map(f => uploadPath(f.path))
  if (new Set(paths).size !== paths.length) throw new SessionError('invalid', 'two files have the same path')
  const ws = await open()
  const encoder = new TextEncoder()
  const datas = files.map(f => (typeof f.data === 'string' ? encoder.encode(f.data) : f.data))
  const max = ctx.settings.quota.maxBytes
  if (max !== undefined) {
    // A file replaced stays in history (its bytes move there): an upload adds its own size, whatever it replaces.
    let bytes = storedBytes(ws.usage())
    for (const [i, p] of paths.entries()) bytes += datas[i].byteLength + HISTORY_ROW_BYTES + p.length
    // Reserved in the index before the write, atomically with the owner's total.
    await ctx.index.setBytes(record.owner, sessionId, bytes, max)
  }
  // Issued together: one commit for the whole upload, all or nothing.
  try {
    await Promise.all(paths.map((p, i) => ws.seed(p, datas[i])))
  } catch (error) {
    // The write failed: the reservation gives way to what the workspace holds.
    if (max !== undefined) await ctx.recordBytes(record.owner, sessionId, storedBytes(ws.usage())).catch(() => undefined)
    throw error
  }
  await ctx.recordBytes(record.owner, sessionId, storedBytes(ws.usage()))
  return paths
}

/** Deletes one uploaded file (never under /state) and updates the owner's bytes. */
async function deleteUpload(ctx: HostContext, record: SessionRecord, ws: RunVfs, path: string): Promise<void> {
  const p = uploadPath(path)
  const base = withActor(await ctx.workspaces.base(record.id), API_ACTOR)
  if (!(await ws.exists(p))) throw new SessionError('not-found', `There is no file ${JSON.stringify(p)}`)
  await base.deleteFile(p)
  await ctx.recordBytes(record.owner, record.id, storedBytes(ws.usage()))
}
