import type { Vfs } from 'agent-vfs'
import { ErrorCode, McpError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js'

/** A workspace file's URI: `vfs://` and its absolute path, each segment percent-encoded (`vfs:///work/notes.md`). */
export const RESOURCE_PREFIX = 'vfs://'

/** Files per `resources/list` page. */
export const RESOURCES_PER_PAGE = 500
/** Largest file `resources/read` returns; read larger ones in pieces with the read_file tool. */
export const MAX_RESOURCE_BYTES = 4 * 1024 * 1024

export const resourceUri = (path: string) => RESOURCE_PREFIX + path.split('/').map(encodeURIComponent).join('/')

/**
 * The workspace path a URI names, as its client wrote it. Not parsed as a URL: a URL parser would
 * resolve `..` and backslashes silently, and the workspace must see them (and refuse them) instead.
 */
export function resourcePath(uri: string): string {
  if (typeof uri !== 'string' || !uri.startsWith(RESOURCE_PREFIX + '/'))
    throw new McpError(
      ErrorCode.InvalidParams,
      `a workspace resource is ${RESOURCE_PREFIX}/<path>, such as ${RESOURCE_PREFIX}/work/notes.md`,
    )
  try {
    return decodeURIComponent(uri.slice(RESOURCE_PREFIX.length))
  } catch {
    throw new McpError(ErrorCode.InvalidParams, 'the resource URI has a malformed percent escape')
  }
}

/** One page of the workspace's files; `cursor` is the index of the first file, as the previous page said. */
export async function listResources(vfs: Vfs, cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const start = cursor === undefined ? 0 : Number(cursor)
  if (!Number.isSafeInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, 'the cursor is not one this server gave')
  const paths = (await vfs.glob('/**')).sort()
  const page = paths.slice(start, start + RESOURCES_PER_PAGE)
  const resources: Resource[] = []
  for (const path of page) {
    const s = await vfs.stat(path).catch(() => undefined)
    if (!s || s.type !== 'file') continue
    resources.push({ uri: resourceUri(path), name: path, mimeType: s.mimeType, size: s.size })
  }
  const next = start + RESOURCES_PER_PAGE
  return { resources, ...(next < paths.length ? { nextCursor: String(next) } : {}) }
}

/** A file's content: text when it is UTF-8, else base64. Refusals (bad path, not found) come from the workspace. */
export async function readResource(vfs: Vfs, uri: string): Promise<ReadResourceResult> {
  const path = resourcePath(uri)
  let bytes: Uint8Array
  let mimeType: string
  try {
    const s = await vfs.stat(path)
    if (s.type === 'directory') throw new McpError(ErrorCode.InvalidParams, `${path} is a directory: list the resources to see its files`)
    if (s.size > MAX_RESOURCE_BYTES)
      throw new McpError(
        ErrorCode.InvalidParams,
        `${path} has ${s.size} bytes, more than ${MAX_RESOURCE_BYTES}: read it in pieces with read_file`,
      )
    mimeType = s.mimeType
    bytes = await vfs.readFile(path)
  } catch (error) {
    if (error instanceof McpError) throw error
    // The workspace's own error (EINVAL for `..`, ENOENT, EACCES) tells what is wrong with the path.
    throw new McpError(ErrorCode.InvalidParams, error instanceof Error ? error.message : String(error))
  }
  const text = utf8(bytes)
  return { contents: [text === undefined ? { uri, mimeType, blob: base64(bytes) } : { uri, mimeType, text }] }
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return text.includes('\0') ? undefined : text
  } catch {
    return undefined
  }
}

function base64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}
