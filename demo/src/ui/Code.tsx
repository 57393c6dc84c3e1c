import hljs from 'highlight.js/lib/core'
import javascript from 'highlight.js/lib/languages/javascript'
import typescript from 'highlight.js/lib/languages/typescript'
import json from 'highlight.js/lib/languages/json'
import { useMemo } from 'preact/hooks'

// Only the languages the demo shows: the full highlight.js bundle is ~10x larger.
hljs.registerLanguage('javascript', javascript)
hljs.registerLanguage('typescript', typescript)
hljs.registerLanguage('json', json)

export type CodeLanguage = 'javascript' | 'typescript' | 'json' | 'text'

/** The language of a file name, for highlighting; `text` when it is none of ours. */
export function languageOf(path: string): CodeLanguage {
  if (/\.(m?js|cjs|jsx)$/i.test(path)) return 'javascript'
  if (/\.(m?ts|cts|tsx)$/i.test(path)) return 'typescript'
  if (/\.json$/i.test(path)) return 'json'
  return 'text'
}

/**
 * Source code with optional line numbers. highlight.js escapes the text it returns, so its HTML is
 * safe to insert; plain text goes through Preact's own escaping.
 */
export function Code({
  code,
  language,
  lineNumbers = false,
  label,
}: {
  code: string
  language: CodeLanguage
  lineNumbers?: boolean
  label?: string
}) {
  const lines = useMemo(() => {
    const html = language === 'text' ? undefined : hljs.highlight(code, { language, ignoreIllegals: true }).value
    return html === undefined ? code.split('\n').map(text => ({ text })) : splitHighlighted(html).map(html => ({ html }))
  }, [code, language])
  return (
    <pre class={`code${lineNumbers ? ' numbered' : ''}`} aria-label={label} tabIndex={0}>
      <code class={language === 'text' ? undefined : `hljs language-${language}`}>
        {lines.map((l, i) => (
          <span class="line" key={i}>
            {lineNumbers && (
              <span class="ln" aria-hidden="true">
                {i + 1}
              </span>
            )}
            {'html' in l ? <span dangerouslySetInnerHTML={{ __html: l.html || ' ' }} /> : <span>{l.text || ' '}</span>}
            {'\n'}
          </span>
        ))}
      </code>
    </pre>
  )
}

/** Splits highlighted HTML into lines, closing and reopening the spans a line break falls inside. */
function splitHighlighted(html: string): string[] {
  const out: string[] = []
  const stack: string[] = []
  let line = ''
  for (const part of html.split(/(<span[^>]*>|<\/span>|\n)/)) {
    if (part === '\n') {
      out.push(line + '</span>'.repeat(stack.length))
      line = stack.join('')
    } else if (part.startsWith('<span')) {
      stack.push(part)
      line += part
    } else if (part === '</span>') {
      stack.pop()
      line += part
    } else line += part
  }
  out.push(line + '</span>'.repeat(stack.length))
  return out
}
