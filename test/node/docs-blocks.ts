/**
 * Reads the code blocks and relative links of the user docs (README.md, docs/*.md, bench/RESULTS.md)
 * for test/node/docs.test.ts.
 *
 * Markers: an HTML comment on the line just before a fence says what the test does with the block.
 * - `<!-- docs:no-run REASON -->`: not run or checked (a config snippet, a server that runs until
 *   Ctrl-C); the reason is required and should say what covers it instead.
 * - `<!-- docs:run tsx -->`: a TypeScript block that is type-checked and then run with tsx.
 * - `<!-- docs:run curl-recipe -->`: the shell recipe the test runs against `npm run serve`; its
 *   `export U=… T=…` line is replaced by the test server's URL and dev token.
 * - `<!-- docs:prelude DECLARATIONS -->`: a TypeScript fragment; the declarations (`declare const x: T`)
 *   are put before it when it is type-checked, for names the surrounding text introduces.
 * A `ts` block without a marker is type-checked; any other block without a marker fails the test.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface DocBlock {
  file: string
  line: number
  lang: string
  code: string
  /** `no-run`, `run`, `prelude` or undefined, and what follows it in the marker. */
  marker?: { kind: 'no-run' | 'run' | 'prelude'; arg: string }
}

export const root = new URL('../../', import.meta.url).pathname

/** The Markdown files users read, relative to the repository root. */
export function docFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter(f => f.endsWith('.md'))
    .sort()
    .map(f => `docs/${f}`)
  return ['README.md', ...docs, 'bench/RESULTS.md']
}

const markerPattern = /^\s*<!--\s*docs:(no-run|run|prelude)\b\s*([\s\S]*?)\s*-->\s*$/

/** Every fenced block of `file` (fences may be indented, as in list items). */
export function blocksOf(file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n')
  const out: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i])
    if (!open) continue
    const indent = open[1].length
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(Math.min(indent, lines[j].search(/\S|$/))))
    const m = i > 0 ? markerPattern.exec(lines[i - 1]) : null
    out.push({
      file,
      line: i + 1,
      lang: open[2],
      code: body.join('\n'),
      ...(m ? { marker: { kind: m[1] as 'no-run', arg: m[2] } } : {}),
    })
    i = j
  }
  return out
}

/**
 * Relative link targets (`[text](target)` and `![alt](target)`) outside code blocks, with their lines;
 * `base` is the folder `file` is relative to (default: this repository; the packed package in pack.test.ts).
 */
export function relativeLinksOf(file: string, base = root): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = []
  let fence = false
  readFileSync(join(base, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) fence = !fence
      if (fence) return
      for (const m of text.replace(/`[^`]*`/g, '').matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]) && !m[1].startsWith('#')) out.push({ line: i + 1, target: m[1] })
      }
    })
  return out
}

/** Whether a TypeScript block needs the Workers types (it imports the Worker entries). */
export const needsWorkersTypes = (code: string): boolean =>
  /from '(agent-vfs\/worker|agent-vfs\/run-js\/workerd|cloudflare:workers)'/.test(code)
