import { Hono, type Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { isVfsError, VfsError, type Vfs, type VfsErrorCode } from 'agent-vfs'
import { etagOf, parseIfMatch, type IfMatch } from './if-match.js'

/** How each workspace error reaches an HTTP client. */
const statusOf: Record<VfsErrorCode, ContentfulStatusCode> = {
  ENOENT: 404,
  EEXIST: 409,
  EISDIR: 409,
  ENOTDIR: 409,
  ENOTEMPTY: 409,
  ECONFLICT: 409,
  EACCES: 403,
  EINVAL: 400,
  EQUOTA: 413,
  ECLOSED: 503,
  ESTORE: 503,
}

/**
 * The minimal file API over one workspace, mounted under `/ws/:name` in a Durable Object and under
 * `/d1/:name` in the Worker. `open` says where the workspace comes from, so both hosts share the
 * routes and the error mapping.
 *
 *   PUT    /file/<path>            body = bytes; `If-Match: "<version>"` (the ETag a GET or PUT gave,
 *                                  a list of them, or `*`) makes it conditional: 412 when it fails
 *   GET    /file/<path>            the bytes, typed by the file name (`text/*` with charset=utf-8),
 *                                  with `ETag: "<version>"`
 *   DELETE /file/<path>
 *   GET    /list?path=/&recursive=1
 *   GET    /grep?q=…&regex=1&ignoreCase=1&path=/dir
 */
export function fileRoutes<E extends object>(open: (c: Context<E>) => Promise<Vfs>): Hono<E> {
  const app = new Hono<E>()
  const pathOf = (c: Context<E>) => '/' + c.req.param('path')

  app.put('/file/:path{.+}', async c => {
    const vfs = await open(c)
    const path = pathOf(c)
    const header = c.req.header('if-match')
    let ifMatch: IfMatch | undefined
    try {
      ifMatch = header === undefined ? undefined : parseIfMatch(header)
    } catch (error) {
      return c.json({ error: { code: 'EINVAL', message: (error as Error).message, path } }, 400)
    }
    const body = new Uint8Array(await c.req.arrayBuffer())
    if (ifMatch) {
      const expectedVersion = await versionMatching(vfs, path, ifMatch)
      if (expectedVersion === undefined) return preconditionFailed(c, path, header!)
      try {
        // The version is checked again as the write commits: a write in between also fails.
        await vfs.writeFile(path, body, { expectedVersion })
      } catch (error) {
        if (isVfsError(error, 'ECONFLICT')) return preconditionFailed(c, path, header!)
        throw error
      }
    } else await vfs.writeFile(path, body)
    const { version, size } = await vfs.stat(path)
    return c.json({ path, version, size }, 200, { etag: etagOf(version) })
  })
  app.get('/file/:path{.+}', async c => {
    const vfs = await open(c)
    const path = pathOf(c)
    const st = await vfs.stat(path)
    if (st.type === 'directory') return c.json({ path, entries: await vfs.readdir(path) })
    const type = st.mimeType.startsWith('text/') ? `${st.mimeType}; charset=utf-8` : st.mimeType
    return c.body((await vfs.readFile(path)) as Uint8Array<ArrayBuffer>, 200, { 'content-type': type, etag: etagOf(st.version) })
  })
  app.delete('/file/:path{.+}', async c => {
    await (await open(c)).deleteFile(pathOf(c))
    return c.body(null, 204)
  })
  app.get('/list', async c => {
    const path = c.req.query('path') ?? '/'
    return c.json({ path, entries: await (await open(c)).readdir(path, { recursive: c.req.query('recursive') === '1' }) })
  })
  app.get('/grep', async c => {
    const q = c.req.query('q')
    if (!q) return c.json({ error: { code: 'EINVAL', message: 'pass the pattern as ?q=' } }, 400)
    const paths = c.req.queries('path')
    return c.json(
      await (
        await open(c)
      ).grep(q, {
        regex: c.req.query('regex') === '1',
        ignoreCase: c.req.query('ignoreCase') === '1',
        ...(paths ? { paths } : {}),
      }),
    )
  })
  const preconditionFailed = (c: Context<E>, path: string, header: string) => {
    const error = new VfsError('ECONFLICT', path, `If-Match ${JSON.stringify(header.slice(0, 100))} does not match the file's current ETag`)
    return c.json({ error: { code: error.code, message: error.message, path } }, 412)
  }
  app.onError((error, c) => {
    if (isVfsError(error)) return c.json({ error: { code: error.code, message: error.message, path: error.path } }, statusOf[error.code])
    // Not a workspace error: a bug or a runtime failure. Log it whole; tell the client only that much.
    console.error(error)
    return c.json({ error: { code: 'EINTERNAL', message: 'internal error' } }, 500)
  })
  return app
}

/**
 * The version a conditional write must find, or undefined when If-Match cannot hold: `*` needs an
 * existing file, a list needs the file's current version in it (a missing file matches no tag).
 */
async function versionMatching(vfs: Vfs, path: string, ifMatch: IfMatch): Promise<number | undefined> {
  const current = await vfs.stat(path).catch((error: unknown) => {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  })
  if (!current || current.type !== 'file') return undefined
  if (ifMatch.any) return current.version
  return ifMatch.versions.includes(current.version) ? current.version : undefined
}
