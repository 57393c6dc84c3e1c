import { useEffect, useState } from 'preact/hooks'
import type { ComponentProps, FunctionComponent } from 'preact'
import type { FilePreview as Preview } from './FilePreview.js'

type Props = ComponentProps<typeof Preview>
let loaded: Promise<FunctionComponent<Props>> | undefined

/**
 * The file preview, loaded on first use: Markdown (marked + DOMPurify) is a third of the UI's
 * JavaScript and nobody needs it before opening a file, so the first paint does without it.
 */
export function LazyPreview(props: Props) {
  const [Component, setComponent] = useState<FunctionComponent<Props> | undefined>()
  const [error, setError] = useState<string | undefined>()
  useEffect(() => {
    loaded ??= import('./FilePreview.js').then(m => m.FilePreview)
    loaded.then(
      c => setComponent(() => c),
      e => setError(String((e as Error)?.message ?? e)),
    )
  }, [])
  if (error)
    return (
      <p class="note error" role="alert">
        The preview could not load: {error}
      </p>
    )
  return Component ? <Component {...props} /> : <p class="hint">Loading the preview…</p>
}
