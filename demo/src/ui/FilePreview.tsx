import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type SessionClient } from '../api/client.js'
import { Code, languageOf } from './Code.js'
import { JsonTree } from './JsonTree.js'
import { Markdown } from './Markdown.js'

/** Files larger than this are not rendered (download them instead). */
const MAX_PREVIEW = 2 * 1024 * 1024

type Loaded =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'markdown' | 'text' | 'code'; text: string }
  | { kind: 'json'; value: unknown }
  | { kind: 'image'; url: string }
  | { kind: 'binary' }
  | { kind: 'too-large' }
  | { kind: 'deleted' }

/** Shows one workspace file: Markdown rendered (sanitised), JSON as a tree, code and text with line numbers, images; download. */
export function FilePreview({
  client,
  sessionId,
  path,
  version,
  deleted = false,
  onClose,
}: {
  client: SessionClient
  sessionId: string
  path: string
  version?: number
  /** The file is no longer in the workspace (an Undo, the agent or another client removed it): said so, nothing fetched. */
  deleted?: boolean
  onClose(): void
}) {
  const [blob, setBlob] = useState<Blob | undefined>()
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' })
  const [download, setDownload] = useState<string | undefined>()
  const heading = useRef<HTMLHeadingElement>(null)
  // Opening a file (from the tree or a timeline link) brings its preview into view and focus.
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'nearest' })
    heading.current?.focus({ preventScroll: true })
  }, [path])

  useEffect(() => {
    let live = true
    let url: string | undefined
    if (deleted) {
      setLoaded({ kind: 'deleted' })
      return
    }
    setLoaded({ kind: 'loading' })
    client.readFile(sessionId, path).then(
      async b => {
        if (!live) return
        url = URL.createObjectURL(b)
        setBlob(b)
        setDownload(url)
        setLoaded(await interpret(path, b, url))
      },
      error => live && setLoaded({ kind: 'error', message: error instanceof ApiError ? error.describe() : String(error) }),
    )
    return () => {
      live = false
      if (url) URL.revokeObjectURL(url)
    }
  }, [client, sessionId, path, version, deleted])

  const name = path.slice(path.lastIndexOf('/') + 1)
  return (
    <section class="panel preview" aria-labelledby="preview-heading" data-testid="file-preview" data-path={path} data-deleted={deleted}>
      <div class="panel-head">
        <h2 id="preview-heading" title={path} tabIndex={-1} ref={heading}>
          {path}
        </h2>
        <div class="actions">
          {download && !deleted && (
            <a class="button" href={download} download={name} data-testid="preview-download">
              Download
            </a>
          )}
          <button type="button" onClick={onClose} data-testid="preview-close" aria-label="Close preview">
            ✕
          </button>
        </div>
      </div>
      <div class="preview-body">
        {loaded.kind === 'loading' && <p class="hint">Loading…</p>}
        {loaded.kind === 'deleted' && (
          <p class="note" role="status" data-testid="preview-deleted">
            Deleted: this file is no longer in the workspace (an Undo or a later change removed it).
          </p>
        )}
        {loaded.kind === 'error' && (
          <p class="note error" role="alert">
            {loaded.message}
          </p>
        )}
        {loaded.kind === 'markdown' && <Markdown source={loaded.text} />}
        {loaded.kind === 'json' && (
          <div data-testid="preview-json">
            <JsonTree value={loaded.value} openDepth={2} label={`${name} as a tree`} />
          </div>
        )}
        {(loaded.kind === 'text' || loaded.kind === 'code') && (
          <div data-testid="preview-text">
            <Code
              code={loaded.text}
              language={loaded.kind === 'code' ? languageOf(path) : 'text'}
              lineNumbers
              label={`${name} with line numbers`}
            />
          </div>
        )}
        {loaded.kind === 'image' && <img src={loaded.url} alt={name} data-testid="preview-image" />}
        {loaded.kind === 'binary' && (
          <p class="hint">
            A binary file ({blob?.size} bytes, {blob?.type || 'unknown type'}): download it to open it.
          </p>
        )}
        {loaded.kind === 'too-large' && <p class="hint">Too large to preview ({blob?.size} bytes): download it.</p>}
      </div>
    </section>
  )
}

async function interpret(path: string, blob: Blob, url: string): Promise<Loaded> {
  if (blob.type.startsWith('image/') && blob.type !== 'image/svg+xml') return { kind: 'image', url }
  if (blob.size > MAX_PREVIEW) return { kind: 'too-large' }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await blob.arrayBuffer())
  } catch {
    return { kind: 'binary' }
  }
  if (/\.(md|markdown)$/i.test(path)) return { kind: 'markdown', text }
  if (/\.json$/i.test(path) || blob.type === 'application/json') {
    try {
      return { kind: 'json', value: JSON.parse(text) }
    } catch {
      return { kind: 'text', text }
    }
  }
  return { kind: languageOf(path) === 'text' ? 'text' : 'code', text }
}
