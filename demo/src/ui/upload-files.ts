import { normalizePath, type VfsError } from 'agent-vfs'

/** A file to upload with its path relative to the target folder (folders keep their structure). */
export interface UploadItem {
  name: string
  data: File
  /** Where it came from, when that differs from `name` (a picked folder's own name is dropped). */
  source?: string
}

/** Files from an `<input type="file" multiple>`, by name. */
export function fromInput(list: FileList | null): UploadItem[] {
  return Array.from(list ?? [], f => ({ name: f.name, data: f }))
}

/**
 * Files from a folder picker (`webkitdirectory`): the folder's contents, with their paths inside
 * it, so picking `season-one/` puts `season-one/characters.md` at `<target>/characters.md`.
 */
export function fromFolderInput(list: FileList | null): UploadItem[] {
  return Array.from(list ?? [], f => {
    const rel = f.webkitRelativePath || f.name
    const slash = rel.indexOf('/')
    return { name: slash < 0 ? rel : rel.slice(slash + 1), data: f, source: rel }
  })
}

/** Files and whole folders dropped on the page, read through the File System entries API. */
export async function fromDrop(transfer: DataTransfer): Promise<UploadItem[]> {
  const entries = Array.from(transfer.items ?? [])
    .map(item => (item.kind === 'file' ? item.webkitGetAsEntry?.() : null))
    .filter((e): e is FileSystemEntry => !!e)
  if (entries.length === 0) return Array.from(transfer.files, f => ({ name: f.name, data: f }))
  const out: UploadItem[] = []
  for (const entry of entries) await walk(entry, '', out)
  return out
}

async function walk(entry: FileSystemEntry, prefix: string, out: UploadItem[]): Promise<void> {
  const name = prefix + entry.name
  if (entry.isFile) {
    const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej))
    out.push({ name, data: file })
    return
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader()
  // readEntries returns the folder in batches (100 in Chromium) until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej))
    if (batch.length === 0) break
    for (const child of batch) await walk(child, `${name}/`, out)
  }
}

/** Largest upload request the demo sends: the session API's default limit (20 MiB). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024

// Types a browser reports for files that are meant to be bytes, not text.
const BINARY = /^(image|audio|video|font)\/|^application\/(pdf|zip|gzip|x-gzip|x-tar|octet-stream|wasm)$/

/**
 * The problems that keep an upload from being sent, one sentence per bad file (empty: it may go).
 * Every name, the picked folder's own included, must be a name the workspace accepts (the
 * library's own rule, so a hostile name is refused before any byte is sent; the host checks again).
 * Every text file must be UTF-8: the agent reads /context as text and a mis-encoded script would
 * be silently garbled. Binary types pass.
 */
export async function checkUpload(items: UploadItem[]): Promise<string[]> {
  const problems: string[] = []
  for (const item of items) {
    try {
      normalizePath(`/${item.source ?? item.name}`)
    } catch (error) {
      problems.push(
        `“${printable(item.source ?? item.name)}” is not a usable name: ${(error as VfsError).detail ?? (error as Error).message}`,
      )
    }
  }
  if (problems.length > 0) return problems
  // The API's default request limit (createSessionApp's maxUploadBytes). Checked here too because a
  // proxy in front of the host may turn the host's early 413 into a bare 502 when it closes the socket.
  const total = items.reduce((n, i) => n + i.data.size, 0)
  if (total > MAX_UPLOAD_BYTES) {
    const big = items.filter(i => i.data.size > MAX_UPLOAD_BYTES).map(i => i.name)
    return [
      `the upload is too large: ${(total / 1048576).toFixed(1)} MiB${big.length ? ` (${big.slice(0, 3).join(', ')} alone ${big.length > 1 ? 'are' : 'is'} over the limit)` : ''}, and uploads are limited to ${MAX_UPLOAD_BYTES} bytes (20 MiB) per request: upload fewer or smaller files`,
    ]
  }
  const decoder = new TextDecoder('utf-8', { fatal: true })
  for (const item of items) {
    if (BINARY.test(item.data.type)) continue
    try {
      decoder.decode(await item.data.arrayBuffer())
    } catch {
      problems.push(`${item.name} is not UTF-8 text: save it as UTF-8 and upload it again`)
    }
  }
  return problems
}

/** A name as a person can read it: control and invisible characters shown as U+XXXX. */
function printable(name: string): string {
  return name.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    c => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`,
  )
}
