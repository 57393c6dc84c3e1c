import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { SOURCE_CONDITION } from '../source-entries.ts'

// The shape of src/ as DESIGN.md draws it, checked on the source: no import circle (type-only imports
// excepted: they vanish at run time and cannot order module evaluation), no file over 400 lines, every
// folder says what it holds and what it may import (a README.md, or an opening comment in index.ts).

const root = fileURLToPath(new URL('../..', import.meta.url))
const src = join(root, 'src')
const MAX_LINES = 400

/**
 * Exceptions to the rules below: none. Nothing may be added without a reason written beside it.
 * Paths are relative to src/.
 */
const ALLOWED = {
  /** Import circles (each as its sorted member files). */
  circles: [] as string[][],
  /** Files over 400 lines. */
  long: [] as string[],
  /** Folders with neither README.md nor an opening comment in index.ts. */
  undocumented: [] as string[],
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

function foldersUnder(dir: string): string[] {
  return readdirSync(dir)
    .map(name => join(dir, name))
    .filter(path => statSync(path).isDirectory())
    .flatMap(path => [path, ...foldersUnder(path)])
}

/** The package's own names (`agent-vfs`, `agent-vfs/…`) mean their sources, as package.json `exports` says. */
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }
const selfNames = new Map<string, string>()
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const source = typeof target === 'object' && target !== null ? (target as Record<string, string>)[SOURCE_CONDITION] : undefined
  if (source) selfNames.set(pkg.name + subpath.slice(1), join(root, source))
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (selfNames.has(specifier)) return selfNames.get(specifier)
  if (!specifier.startsWith('.')) return undefined
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return undefined
}

/**
 * Static imports and re-exports of a file; unless `types`, only those that exist at run time (not
 * `import type`, not all-`type` specifiers).
 */
function importsOf(file: string, types = false): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false)
  const out: string[] = []
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const named = clause?.namedBindings
      const onlyTypes =
        clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every(e => e.isTypeOnly)
      if (types || !(clause?.isTypeOnly || onlyTypes)) out.push((node.moduleSpecifier as ts.StringLiteral).text)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const named = node.exportClause
      const onlyTypes = named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every(e => e.isTypeOnly)
      if (types || !(node.isTypeOnly || onlyTypes)) out.push((node.moduleSpecifier as ts.StringLiteral).text)
    }
  }
  return out
}

/** Strongly connected components with more than one file (or a file importing itself): the circles. */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const stack: string[] = []
  const on = new Set<string>()
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const found: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return found
}

const rel = (path: string) => relative(src, path).split('\\').join('/')

/** The import graph of src/ by path relative to src/. */
function importGraph(files: string[], types: boolean): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const targets = importsOf(file, types)
      .map(s => resolveImport(file, s))
      .filter((t): t is string => !!t && t.startsWith(src))
    graph.set(rel(file), targets.map(rel))
  }
  return graph
}

describe('the shape of src/', () => {
  const files = filesUnder(src)

  it('finds circles (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a', 'd']],
      ['e', []],
    ])
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['d']])
  })

  it('has no import circle except type-only imports (and the listed ones being opened elsewhere)', () => {
    const graph = importGraph(files, false)
    // The graph is real: the root reaches run_js, and a secondary entry reaches the root by name.
    expect(graph.get('index.ts')).toContain('run-js/index.ts')
    expect(graph.get('runtimes/workerd/index.ts')).toContain('index.ts')
    const allowed = new Set(ALLOWED.circles.map(c => c.join(' ')))
    expect(circles(graph).filter(c => !allowed.has(c.join(' ')))).toEqual([])
  })

  it('has no circle at all in src/run-js, src/runtimes and src/contract, type-only imports included', () => {
    const mine = (p: string) => /^(run-js|runtimes|contract)\//.test(p)
    const graph = importGraph(
      files.filter(f => mine(rel(f))),
      true,
    )
    for (const [from, to] of graph) graph.set(from, to.filter(mine))
    expect(circles(graph)).toEqual([])
  })

  it('has no circle at all in src/session, type-only imports included (issue 29)', () => {
    const mine = (p: string) => p.startsWith('session/')
    const graph = importGraph(
      files.filter(f => mine(rel(f))),
      true,
    )
    for (const [from, to] of graph) graph.set(from, to.filter(mine))
    expect(circles(graph)).toEqual([])
  })

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = files.filter(f => readFileSync(f, 'utf8').split('\n').length - 1 > MAX_LINES).map(rel)
    expect(long.filter(f => !ALLOWED.long.includes(f))).toEqual([])
  })

  it('has a README.md or an opening comment in index.ts in every folder', () => {
    const undocumented = foldersUnder(src).filter(dir => {
      if (existsSync(join(dir, 'README.md'))) return false
      const index = join(dir, 'index.ts')
      return !existsSync(index) || !/^\s*(\/\*\*|\/\/)/.test(readFileSync(index, 'utf8'))
    })
    expect(undocumented.map(rel).filter(d => !ALLOWED.undocumented.includes(d))).toEqual([])
  })

  it('keeps its allow-list free of src/run-js, src/runtimes, src/contract and src/index.ts', () => {
    const all = [...ALLOWED.circles.flat(), ...ALLOWED.long, ...ALLOWED.undocumented]
    expect(all.filter(p => /^(run-js|runtimes|contract)(\/|$)|^index\.ts$/.test(p))).toEqual([])
  })
})
