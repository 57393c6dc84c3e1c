import { useState } from 'preact/hooks'
import { ApiError, asSentence, type SessionClient } from '../api/client.js'
import type { FileEntry } from '../api/types.js'
import { checkUpload, fromDrop, fromFolderInput, fromInput, type UploadItem } from './upload-files.js'

/** Folders a person may upload into (the runtime owns /state). */
const UPLOAD_DIRS = ['/context', '/skills', '/work', '/outputs']

interface Dir {
  name: string
  path: string
  dirs: Map<string, Dir>
  files: FileEntry[]
}

function buildTree(files: FileEntry[]): Dir {
  const root: Dir = { name: '', path: '', dirs: new Map(), files: [] }
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = f.path.split('/').filter(Boolean)
    let dir = root
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part)
      if (!next) dir.dirs.set(part, (next = { name: part, path: `${dir.path}/${part}`, dirs: new Map(), files: [] }))
      dir = next
    }
    dir.files.push(f)
  }
  return root
}

/** Top folders in the order a person looks for them: what the agent made before what it was given. */
const TOP_ORDER = ['outputs', 'work', 'context', 'skills', 'state']
const topRank = (name: string) => (TOP_ORDER.includes(name) ? TOP_ORDER.indexOf(name) : TOP_ORDER.length)

/** Folders with more files than this start folded (60 episode scripts would push the rest away). */
const FOLD_OVER_FILES = 20

/**
 * Unfolds the folder at `path` in the file tree (and its parents), scrolls it into view and focuses
 * it: where a link to a folder ("see /outputs") takes a person. Folds stay the person's afterwards.
 */
export function revealFolder(path: string): void {
  const dir = document.querySelector<HTMLDetailsElement>(`[data-testid="file-dir"][data-path="${CSS.escape(path)}"]`)
  if (!dir) return
  for (let d: HTMLElement | null = dir; d; d = d.parentElement?.closest<HTMLDetailsElement>('[data-testid="file-dir"]') ?? null) {
    ;(d as HTMLDetailsElement).open = true
  }
  const summary = dir.querySelector('summary')
  summary?.focus()
  summary?.scrollIntoView({ block: 'nearest' })
}

const sizeText = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`

/** The workspace's files as a tree, with upload by picker, folder picker and drag and drop. */
export function FilePanel(props: {
  client: SessionClient
  sessionId: string
  files: FileEntry[] | undefined
  error?: string
  selected?: string
  onSelect(path: string): void
  onChanged(): void
}) {
  const { client, sessionId } = props
  const [dir, setDir] = useState('/context')
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>()
  const [dragging, setDragging] = useState(false)

  async function upload(items: UploadItem[]) {
    if (items.length === 0) return
    setBusy(true)
    setMessage({ ok: true, text: `Checking ${items.length} file(s)…` })
    try {
      const problems = await checkUpload(items)
      if (problems.length > 0) {
        setMessage({
          ok: false,
          text: `Nothing was uploaded. ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}.`,
        })
        return
      }
      setMessage({ ok: true, text: `Uploading ${items.length} file(s) to ${dir}…` })
      const { paths } = await client.uploadFiles(sessionId, items, dir)
      setMessage({ ok: true, text: `Uploaded ${paths.length} file(s) to ${dir}.` })
      props.onChanged()
    } catch (error) {
      const text = error instanceof ApiError ? error.describe() : asSentence(String((error as Error)?.message ?? error))
      setMessage({ ok: false, text: `Nothing was uploaded. ${text}` })
    } finally {
      setBusy(false)
    }
  }

  const tree = props.files ? buildTree(props.files) : undefined
  return (
    <section class="panel files" aria-labelledby="files-heading">
      <div class="panel-head">
        <h2 id="files-heading">Files</h2>
        <button type="button" data-testid="refresh-files" onClick={props.onChanged} aria-label="Refresh files">
          ↻
        </button>
      </div>
      <div
        class={`drop-zone${dragging ? ' dragging' : ''}`}
        data-testid="drop-zone"
        onDragOver={e => {
          e.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={async e => {
          e.preventDefault()
          setDragging(false)
          if (e.dataTransfer) await upload(await fromDrop(e.dataTransfer))
        }}
      >
        <label>
          Upload into{' '}
          <select data-testid="upload-dir" value={dir} onChange={e => setDir((e.target as HTMLSelectElement).value)}>
            {UPLOAD_DIRS.map(d => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <div class="upload-buttons">
          <label class="button">
            Files…
            <input
              type="file"
              multiple
              class="visually-hidden"
              data-testid="upload-files"
              disabled={busy}
              onChange={e =>
                void upload(fromInput((e.target as HTMLInputElement).files)).finally(() => ((e.target as HTMLInputElement).value = ''))
              }
            />
          </label>
          <label class="button">
            Folder contents…
            <input
              type="file"
              multiple
              class="visually-hidden"
              data-testid="upload-folder"
              disabled={busy}
              {...{ webkitdirectory: true }}
              onChange={e =>
                void upload(fromFolderInput((e.target as HTMLInputElement).files)).finally(
                  () => ((e.target as HTMLInputElement).value = ''),
                )
              }
            />
          </label>
        </div>
        <p class="hint">or drop files and folders here (a dropped folder keeps its name; “Folder contents” does not)</p>
      </div>
      <div
        data-testid="upload-message"
        role={message && !message.ok ? 'alert' : 'status'}
        class={message ? (message.ok ? 'note' : 'note error') : 'note empty'}
      >
        {message?.text}
      </div>
      {props.error && (
        <p class="note error" role="alert">
          {props.error}
        </p>
      )}
      <nav aria-label="Workspace files" data-testid="file-tree" class="tree">
        {tree ? (
          tree.dirs.size + tree.files.length === 0 ? (
            <p class="hint">The workspace is empty: upload the inputs into /context.</p>
          ) : (
            <DirView dir={tree} depth={0} {...props} />
          )
        ) : props.error ? (
          <p class="hint">The files could not be listed; ↻ tries again.</p>
        ) : (
          <p class="hint">Loading…</p>
        )}
      </nav>
    </section>
  )
}

function DirView({ dir, depth, selected, onSelect }: { dir: Dir; depth: number; selected?: string; onSelect(path: string): void }) {
  const dirs = [...dir.dirs.values()]
  if (depth === 0) dirs.sort((a, b) => topRank(a.name) - topRank(b.name))
  return (
    <ul role={depth === 0 ? undefined : 'group'}>
      {dirs.map(d => (
        <li key={d.path}>
          <details
            open={d.path !== '/state' && !d.name.startsWith('.') && depth < 2 && d.files.length <= FOLD_OVER_FILES}
            data-testid="file-dir"
            data-path={d.path}
          >
            <summary>{d.name}/</summary>
            <DirView dir={d} depth={depth + 1} selected={selected} onSelect={onSelect} />
          </details>
        </li>
      ))}
      {dir.files.map(f => (
        <li key={f.path}>
          <button
            type="button"
            class={`file${selected === f.path ? ' selected' : ''}`}
            data-testid="file-item"
            data-path={f.path}
            aria-current={selected === f.path ? 'true' : undefined}
            onClick={() => onSelect(f.path)}
          >
            <span class="file-name">{f.path.slice(f.path.lastIndexOf('/') + 1)}</span>
            <span class="file-size">{sizeText(f.size)}</span>
          </button>
        </li>
      ))}
    </ul>
  )
}
