/** A file to upload with its path relative to the target folder (folders keep their structure). */
export interface UploadItem {
  name: string
  data: File
}

/** Files from an `<input type="file">` (with `webkitdirectory`, each keeps its path inside the chosen folder). */
export function fromInput(list: FileList | null): UploadItem[] {
  return Array.from(list ?? [], (f) => ({ name: f.webkitRelativePath || f.name, data: f }))
}

/** Files and whole folders dropped on the page, read through the File System entries API. */
export async function fromDrop(transfer: DataTransfer): Promise<UploadItem[]> {
  const entries = Array.from(transfer.items ?? [])
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry?.() : null))
    .filter((e): e is FileSystemEntry => !!e)
  if (entries.length === 0) return Array.from(transfer.files, (f) => ({ name: f.name, data: f }))
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

// Types a browser reports for files that are meant to be bytes, not text.
const BINARY = /^(image|audio|video|font)\/|^application\/(pdf|zip|gzip|x-gzip|x-tar|octet-stream|wasm)$/

/**
 * The problems that keep an upload from being sent: every text file must be UTF-8 (the agent
 * reads /context as text; a mis-encoded script would be silently garbled). Binary types pass.
 * Returns one sentence per bad file; empty means the upload may go.
 */
export async function checkUpload(items: UploadItem[]): Promise<string[]> {
  const problems: string[] = []
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
