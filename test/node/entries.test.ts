import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { bundleImports } from '../shared/bundle-checks.js'
import { SOURCE_CONDITION } from '../source-entries.ts'

// The built package (`npm test` builds it first), as Node resolves it: by package name. Inside vitest
// `agent-vfs` means the source (see vitest.config.ts), so the run-time checks run in a child node.
const root = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
const read = (file: string) => readFileSync(`${root}dist/${file}`, 'utf8')

/** The dist files behind the package's JavaScript entries. */
function entryFiles(): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, target] of Object.entries<{ default?: string } | string>(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default
    if (file?.endsWith('.js')) out[name] = file.replace(/^\.\/dist\//, '')
  }
  return out
}

/** The build list of scripts/build.mjs (one `{ in: '…', out: '…', … }` per line) with its flags. */
function buildList(): Array<{ in: string; out: string; flags: string[] }> {
  const build = readFileSync(`${root}scripts/build.mjs`, 'utf8')
  return [...build.matchAll(/^\s*\{ in: '([^']+)', out: '([\w-]+)'((?:, \w+: true)*) \},$/gm)].map(m => ({
    in: m[1],
    out: m[2],
    flags: [...m[3].matchAll(/(\w+): true/g)].map(f => f[1]),
  }))
}

/** package.json `exports` entries that are modules: subpath → its conditions. */
function moduleExports(): Array<[string, Record<string, string>]> {
  const all = Object.entries<Record<string, string> | string>(pkg.exports)
  return all.filter((e): e is [string, Record<string, string>] => typeof e[1] === 'object')
}

/** The source modules in a bundle: esbuild heads each one with a `// <path>` comment (dist/ is not minified). */
function modulesIn(source: string): Set<string> {
  return new Set([...source.matchAll(/^\/\/ ((?:src|adapters|node_modules)\/\S+)$/gm)].map(m => m[1]))
}

/** Classes a bundle declares: two classes of one name in two bundles means two copies. */
function classesIn(source: string): Set<string> {
  return new Set([...source.matchAll(/^(?:class\s+([\w$]+)|var\s+([\w$]+)\s*=\s*class\b)/gm)].map(m => m[1] ?? m[2]))
}

/** Runs an ES module in a child `node` inside this package, so `agent-vfs` resolves to dist/. */
function runNode(program: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', program], { cwd: root, encoding: 'utf8', timeout: 60_000 })
}

describe('one core, many entries (dist/)', () => {
  const files = entryFiles()
  const secondary = Object.entries(files).filter(([name]) => name !== '.')

  it('has the entries the package exports', () => {
    for (const file of Object.values(files)) expect(existsSync(`${root}dist/${file}`), file).toBe(true)
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(['.', './agent', './mastra', './run-js/workerd', './run-js/typescript', './session', './worker']),
    )
  })

  it('registering an entry takes the build list and package.json exports, and the two agree', () => {
    const list = buildList()
    expect(list.map(e => e.out)).toEqual(expect.arrayContaining(['index', 'internal', 'agent', 'run-js-node-worker']))
    const exported = moduleExports()
    // Every module export names its source (for tsconfig and vitest) and its dist files, as the build list does.
    for (const [subpath, target] of exported) {
      const entry = list.find(e => `./${e.in}` === target[SOURCE_CONDITION])
      expect(entry, `${subpath}: no build entry for ${target[SOURCE_CONDITION]}`).toBeDefined()
      const main = `./dist/${entry!.out}.js`
      // An entry with optional peers: Node's import goes through the file that names a missing one
      // (scripts/optional-peers.mjs); bundlers and require() take the entry itself.
      const checked = 'node' in target ? { module: main, require: main, node: `./dist/${entry!.out}-node.js` } : {}
      const expected = { [SOURCE_CONDITION]: `./${entry!.in}`, types: `./dist/${entry!.out}.d.ts`, ...checked, default: main }
      expect(target, subpath).toEqual(expected)
      expect(Object.keys(target), subpath).toEqual(Object.keys(expected))
    }
    expect(exported.filter(([, t]) => 'node' in t).map(([subpath]) => subpath)).toEqual([
      './mastra',
      './session',
      './mcp',
      './bash',
      './react',
    ])
    // Every built entry is exported, except a script for its own isolate (started by path).
    const sources = new Set(exported.map(([, t]) => t[SOURCE_CONDITION]))
    for (const entry of list) expect(sources.has(`./${entry.in}`) !== entry.flags.includes('isolate'), entry.in).toBe(true)
    // Nothing else registers an entry: tsconfig and vitest read package.json (SOURCE_CONDITION).
    for (const config of ['tsconfig.json', 'test/workers/tsconfig.json']) {
      const text = readFileSync(`${root}${config}`, 'utf8')
      expect(text, config).toContain(`"customConditions": ["${SOURCE_CONDITION}"]`)
      expect(text, config).not.toMatch(/"agent-vfs[^"]*":\s*\[/)
    }
  })

  it('every export is built, has types, and imports', () => {
    for (const [subpath, target] of moduleExports()) {
      expect(existsSync(`${root}${target.default}`), `${subpath}: ${target.default}`).toBe(true)
      expect(existsSync(`${root}${target.types}`), `${subpath}: ${target.types}`).toBe(true)
      // The declaration file re-exports a declaration tsc emitted.
      const types = /from '(\.\/types\/[^']+)\.js'/.exec(readFileSync(`${root}${target.types}`, 'utf8'))
      expect(types && existsSync(`${root}dist/${types[1].slice(2)}.d.ts`), `${subpath}: declarations`).toBe(true)
    }
    // Node loads every entry but those made for workerd (cloudflare:workers, a wasm module import); what
    // they import is a dependency, another entry, a file beside them or the Workers runtime.
    const names = moduleExports().map(([subpath]) => pkg.name + subpath.slice(1))
    const workerdOnly = names.filter(name =>
      bundleImports(read(files[`.${name.slice(pkg.name.length)}`])).some(s => s.startsWith('cloudflare:') || s.endsWith('.wasm')),
    )
    expect(workerdOnly.sort()).toEqual(['agent-vfs/run-js/workerd', 'agent-vfs/worker'])
    const out = runNode(`
      const loaded = {}
      for (const name of ${JSON.stringify(names.filter(n => !workerdOnly.includes(n)))}) loaded[name] = Object.keys(await import(name)).length
      console.log(JSON.stringify(loaded))
    `)
    for (const [name, count] of Object.entries(JSON.parse(out) as Record<string, number>)) expect(count, name).toBeGreaterThan(0)
    const known = new Set([...names, ...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})])
    for (const name of workerdOnly) {
      for (const s of bundleImports(read(files[`.${name.slice(pkg.name.length)}`]))) {
        const ok =
          known.has(s) ||
          known.has(
            s
              .split('/')
              .slice(0, s.startsWith('@') ? 2 : 1)
              .join('/'),
          ) ||
          s.startsWith('cloudflare:') ||
          (s.startsWith('./') && existsSync(`${root}dist/${s.slice(2)}`))
        expect(ok, `${name} imports ${s}`).toBe(true)
      }
    }
  })

  it('agent-vfs/internal is the core’s own bindings: no copy, none of them at the typed root, errors are the root’s VfsError', () => {
    const out = runNode(`
      import * as core from 'agent-vfs'
      import * as internal from 'agent-vfs/internal'
      const names = Object.keys(internal)
      const same = names.filter((n) => core['__internal_' + n] === internal[n]).length
      const atRoot = names.filter((n) => n in core)
      const error = internal.conflictError('/a.md', 1, undefined)
      console.log(JSON.stringify({ names: names.length, same, atRoot, instance: error instanceof core.VfsError, is: core.isVfsError(error, 'ECONFLICT') }))
    `)
    const r = JSON.parse(out)
    expect(r.names).toBeGreaterThan(10)
    expect(r).toEqual({ names: r.names, same: r.names, atRoot: [], instance: true, is: true })
  })

  it('no secondary bundle carries a copy of the core: each imports `agent-vfs` and holds none of its modules or classes', () => {
    const core = read(files['.'])
    // esbuild prints imports with double quotes; the core's messages quote `import('agent-vfs/…')` as advice.
    expect(core).not.toMatch(/\bfrom\s*"agent-vfs|\bimport\(\s*"agent-vfs/)
    const coreModules = modulesIn(core)
    const coreClasses = classesIn(core)
    expect(coreModules).toContain('src/contract/errors.ts')
    expect(coreClasses).toContain('VfsError')
    for (const [name, file] of secondary) {
      if (name === './run-js/typescript') continue // ts-blank-space + typescript only; checked below
      if (name === './client') continue // imports nothing at all; checked below
      if (name === './react' || name === './ai-sdk-ui') continue // the client only (and React); checked below
      const source = read(file)
      // The core by name: `agent-vfs`, or `agent-vfs/internal` (the core's own bindings) for what is not user API.
      expect(
        bundleImports(source).filter(s => s === 'agent-vfs' || s === 'agent-vfs/internal'),
        name,
      ).not.toEqual([])
      expect(
        [...modulesIn(source)].filter(m => coreModules.has(m)),
        name,
      ).toEqual([])
      expect(
        [...classesIn(source)].filter(c => coreClasses.has(c)),
        name,
      ).toEqual([])
    }
    // The TypeScript loader (minified) knows nothing of the core; that it needs nothing else is checked below.
    expect(read(files['./run-js/typescript'])).not.toMatch(/from\s*["']agent-vfs/)
    // The session client runs in any app (a browser page, a Worker) without the core: it imports nothing.
    expect(bundleImports(read(files['./client']))).toEqual([])
    // The hooks and the useChat transport need no core either: the client, and React for the hooks.
    expect([...new Set(bundleImports(read(files['./react'])))].sort()).toEqual(['agent-vfs/client', 'react'])
    expect(bundleImports(read(files['./ai-sdk-ui']))).toEqual(['agent-vfs/client'])
    for (const name of ['./react', './ai-sdk-ui'])
      expect(
        [...modulesIn(read(files[name]))].filter(m => !m.startsWith(`src/${name.slice(2)}/`)),
        name,
      ).toEqual([])
  })

  it('exactly one file carries its own core: the worker-thread script, which runs in its own isolate', () => {
    // A worker thread cannot share the app's core (another isolate, other objects), so the script it
    // starts (scripts/build.mjs `isolate: true`) bundles one; nothing of the app ever meets its classes.
    const worker = read('run-js-node-worker.js')
    expect(bundleImports(worker).filter(s => s === 'agent-vfs' || s.startsWith('agent-vfs/'))).toEqual([])
    expect(modulesIn(worker)).toContain('src/run-js/run.ts')
    const build = readFileSync(`${root}scripts/build.mjs`, 'utf8')
    expect([...build.matchAll(/out: '([\w-]+)', isolate: true/g)].map(m => m[1])).toEqual(['run-js-node-worker'])
  })

  it('agent-vfs/worker imports the core and the session entry by name, and the Workers runtime only as cloudflare:workers', () => {
    const imports = bundleImports(read(files['./worker']))
    expect(imports).toEqual(expect.arrayContaining(['agent-vfs', 'agent-vfs/session', 'cloudflare:workers']))
    expect(imports.filter(s => s.startsWith('node:'))).toEqual([])
    expect(modulesIn(read(files['./worker']))).not.toContain('src/session/host.ts')
  })

  it('a file-only import does not load zod: the core imports no zod, zod is a semver range', () => {
    expect(bundleImports(read(files['.'])).filter(s => s === 'zod' || s.startsWith('zod/'))).toEqual([])
    expect(bundleImports(read(files['./agent']))).toContain('zod')
    expect(pkg.dependencies.zod).toMatch(/^\^4\./)
  })

  it('agent-vfs/run-js/typescript is one self-contained module that strips types', () => {
    const out = runNode(`
      import strip from 'agent-vfs/run-js/typescript'
      console.log(JSON.stringify(strip('const a: number = 1; return a as number')))
    `)
    const js = JSON.parse(out) as string
    expect(js).not.toContain('number')
    expect(new Function(js)()).toBe(1)
  })

  it('one VfsError at run time: isVfsError from agent-vfs recognises errors of a workspace that agent-vfs/mastra opened', () => {
    const out = runNode(`
      import { memoryStore, isVfsError, VfsError } from 'agent-vfs'
      import { vfsWorkspaceResolver } from 'agent-vfs/mastra'
      const resolve = vfsWorkspaceResolver({ store: memoryStore(), namespace: 'one-core' })
      const ws = await resolve.forScope('s')
      const error = await ws.filesystem.vfs.readFile('/missing.md').catch((e) => e)
      console.log(JSON.stringify({ is: isVfsError(error, 'ENOENT'), instance: error instanceof VfsError }))
    `)
    expect(JSON.parse(out)).toEqual({ is: true, instance: true })
  })

  it('one ToolError at run time: agent-vfs/mastra run_js fails with the agent runtime’s ToolError', () => {
    const out = runNode(`
      import { memoryStore, openVfs } from 'agent-vfs'
      import { ToolError } from 'agent-vfs/agent'
      import { runJsTool } from 'agent-vfs/mastra'
      const vfs = await openVfs({ store: memoryStore(), namespace: 'one-core', scope: 't' })
      const tool = runJsTool(vfs, { typescript: false })
      const ctx = { observe: { span: (_n, fn) => fn(), log() {} } }
      const error = await tool.execute({ code: 'throw new TypeError("nope")' }, ctx).then((r) => r, (e) => e)
      console.log(JSON.stringify({ toolError: error instanceof ToolError, message: String(error?.message ?? JSON.stringify(error)) }))
    `)
    const r = JSON.parse(out)
    expect(r.message).toMatch(/TypeError: nope/)
    expect(r.toolError).toBe(true)
  })
})
