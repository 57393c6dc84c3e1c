import { sessionRoutes } from '../../src/session/index.js'

/** Multipart form of an upload: one part per file, its name the path. */
export function uploadForm(files: Record<string, string>): FormData {
  const form = new FormData()
  for (const [p, text] of Object.entries(files)) form.append('file', new Blob([text]), p)
  return form
}

/** A request for every route of the table, for a session `id`. */
export function requestFor(name: keyof typeof sessionRoutes, id: string): { method: string; path: string; body?: unknown } {
  const r = sessionRoutes[name]
  let path = r.path.replace('{id}', id).replace('{pendingId}', 'e0001-p1').replace('{executionId}', 'e0001').replace('{name}', 'b1')
  if (name === 'putFile' || name === 'getFile' || name === 'deleteFile') path += '?path=/context/a.md'
  const bodies: Partial<Record<keyof typeof sessionRoutes, unknown>> = {
    createSession: { profile: 'appendix' },
    sendMessage: { text: 'hi' },
    answerPending: { decision: 'approve' },
    putFile: new Uint8Array([1, 2]),
    uploadFiles: uploadForm({ 'a.md': 'x' }),
    fork: { at: { seq: 1 } },
  }
  return { method: r.method.toUpperCase(), path, ...(name in bodies ? { body: bodies[name] } : {}) }
}
