import DOMPurify from 'dompurify'
import { marked } from 'marked'
import { useMemo } from 'preact/hooks'

/**
 * Markdown from the workspace (written by a model, or uploaded: untrusted), rendered by marked and
 * sanitised by DOMPurify before it reaches the DOM. Links open in a new tab without an opener.
 */
export function Markdown({ source }: { source: string }) {
  const html = useMemo(() => {
    const raw = marked.parse(source, { async: false, gfm: true }) as string
    const clean = DOMPurify.sanitize(raw, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button'] })
    return clean
  }, [source])
  return <div class="markdown" data-testid="preview-markdown" dangerouslySetInnerHTML={{ __html: html }} />
}

// Links in rendered Markdown never take over the demo's tab.
DOMPurify.addHook('afterSanitizeAttributes', node => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer')
  }
})
