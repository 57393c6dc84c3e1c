/**
 * `node scripts/house-figures.mjs [folder]`: the shape of one folder of src/ (default src/session) as
 * issue 29 measures it, from the sources' import declarations (parsed by TypeScript, type-only imports
 * included: they show the design even when they vanish at run time). Prints JSON: files at the folder's
 * top, its sub-folders, import arrows inside it, floors (the longest chain of arrows, circles counted as
 * one room), its import circles, `as unknown as` casts, and the circles of the whole house (src/ and
 * adapters/).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = fileURLToPath(new URL('..', import.meta.url))
const folder = join(root, process.argv[2] ?? 'src/session')

const filesUnder = dir =>
  readdirSync(dir).flatMap(name => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })

/** Every static import, re-export and `import()` type of a file (type-only ones included). */
function specifiersOf(file) {
  const text = readFileSync(file, 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false)
  const out = []
  const visit = node => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) out.push(node.moduleSpecifier.text)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) out.push(node.argument.literal.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const selfNames = new Map(
  Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target['agent-vfs:source'])
    .map(([subpath, target]) => [pkg.name + subpath.slice(1), join(root, target['agent-vfs:source'])]),
)

function resolveImport(from, specifier) {
  if (selfNames.has(specifier)) return selfNames.get(specifier)
  if (!specifier.startsWith('.')) return undefined
  const base = resolve(dirname(from), specifier)
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, join(base, 'index.ts')]
  return candidates.find(c => existsSync(c) && statSync(c).isFile())
}

/** The import graph of `files`, arrows inside the set only. */
function graphOf(files) {
  const inside = new Set(files)
  return new Map(files.map(f => [f, [...new Set(specifiersOf(f).map(s => resolveImport(f, s)))].filter(t => inside.has(t))]))
}

/** Strongly connected components (Tarjan), each sorted. */
function components(graph) {
  let n = 0
  const stack = []
  const on = new Set()
  const idx = new Map()
  const low = new Map()
  const found = []
  const visit = v => {
    idx.set(v, n)
    low.set(v, n++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v)) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
    }
    if (low.get(v) !== idx.get(v)) return
    const component = []
    let w
    do {
      w = stack.pop()
      on.delete(w)
      component.push(w)
    } while (w !== v)
    found.push(component.sort())
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return found
}

const circlesOf = graph => components(graph).filter(c => c.length > 1 || graph.get(c[0]).includes(c[0]))

/** The longest chain of arrows (its files, top first), a circle counting as one room: its length is the floors. */
function longestChain(graph) {
  const room = new Map()
  for (const c of components(graph)) for (const f of c) room.set(f, c)
  const memo = new Map()
  const chainOf = c => {
    if (memo.has(c)) return memo.get(c)
    memo.set(c, [c[0]])
    const below = c
      .flatMap(f => graph.get(f))
      .map(t => room.get(t))
      .filter(t => t !== c)
    const longest = below.map(chainOf).reduce((a, b) => (b.length > a.length ? b : a), [])
    memo.set(c, [c[0], ...longest])
    return memo.get(c)
  }
  return [...new Set(room.values())].map(chainOf).reduce((a, b) => (b.length > a.length ? b : a), [])
}

const rel = path => relative(root, path).split('\\').join('/')
const files = filesUnder(folder)
const graph = graphOf(files)
const house = graphOf([...filesUnder(join(root, 'src')), ...filesUnder(join(root, 'adapters'))])
const casts = files.reduce((sum, f) => sum + (readFileSync(f, 'utf8').match(/as unknown as/g) ?? []).length, 0)

console.log(
  JSON.stringify(
    {
      folder: rel(folder),
      filesAtTop: readdirSync(folder).filter(n => /\.tsx?$/.test(n)).length,
      subFolders: readdirSync(folder).filter(n => statSync(join(folder, n)).isDirectory()),
      files: files.length,
      arrows: [...graph.values()].reduce((sum, to) => sum + to.length, 0),
      floors: longestChain(graph).length,
      longestChain: longestChain(graph).map(rel),
      circles: circlesOf(graph).map(c => c.map(rel)),
      asUnknownAs: casts,
      houseCircles: circlesOf(house).map(c => c.map(rel)),
    },
    null,
    2,
  ),
)
