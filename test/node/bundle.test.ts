import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bundleImports, forbiddenUses, staticImports } from '../shared/bundle-checks.js'

// `npm test` builds first (scripts/test.sh); this checks the artefact users install.
const source = readFileSync(new URL('../../dist/index.js', import.meta.url), 'utf8')
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
// Runtime dependencies and the package's private imports (package.json `imports`, e.g. #quickjs-node).
const allowed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.imports ?? {})])

describe('dist/index.js in Node', () => {
  it('is one ESM file that imports only our declared runtime dependencies', () => {
    for (const spec of bundleImports(source)) expect(allowed.has(spec.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1')), spec).toBe(true)
    expect(forbiddenUses(source)).toEqual([])
  })

  it('loads at start only what every run needs: re2js, diff, node-diff3, idb, ipaddr.js and the non-Node QuickJS variant on first use', () => {
    // A cold start that runs one program parses none of them (bench runjs.cold.js); the first search loads re2js,
    // a program's first fetch ipaddr.js.
    const lazy = ['re2js', 'diff', 'node-diff3', 'idb', 'ipaddr.js', '@jitl/quickjs-wasmfile-release-sync']
    expect(staticImports(source).filter(s => lazy.includes(s))).toEqual([])
    expect(
      bundleImports(source)
        .filter(s => lazy.includes(s))
        .sort(),
    ).toEqual([...lazy].sort())
  })

  it('works: open a workspace on the memory store, write, reopen, grep', async () => {
    const lib = await import('../../dist/index.js' as string)
    const store = lib.memoryStore()
    const a = await lib.openVfs({ store, namespace: 'bundle', scope: 's' })
    await a.writeFile('/notes/a.md', 'hello from the bundle')
    const b = await lib.openVfs({ store, namespace: 'bundle', scope: 's' })
    expect((await b.grep('bundle')).matches[0]).toMatchObject({ path: '/notes/a.md', line: 1 })
    for (const name of ['openVfs', 'memoryStore', 'scopeRun', 'vfsRegistry', 'VfsError']) expect(typeof lib[name], name).toBe('function')
  })
})
