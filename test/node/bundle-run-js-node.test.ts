import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bundleImports } from '../shared/bundle-checks.js'

// `npm test` builds first (scripts/test.sh); this checks agent-vfs/run-js/node as users install it:
// the worker script is carried inside the entry (started as code), with no workerUrl.
const dist = (file: string) => new URL(`../../dist/${file}`, import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
const dependencies = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.imports ?? {})]

describe('dist/run-js-node.js in Node', () => {
  it('imports only the core (host side), our runtime dependencies and Node built-ins; the root entry imports neither it nor node:', () => {
    // The host side imports the core by name; the worker script runs in its own isolate and bundles one.
    for (const [file, allowed] of [
      ['run-js-node.js', new Set([pkg.name, ...dependencies])],
      ['run-js-node-worker.js', new Set(dependencies)],
    ] as const) {
      for (const spec of bundleImports(readFileSync(dist(file), 'utf8'))) {
        expect(spec.startsWith('node:') || allowed.has(spec.replace(/^(@[^/]+\/[^/]+|[^/]+).*$/, '$1')), `${file}: ${spec}`).toBe(true)
      }
    }
    const root = readFileSync(dist('index.js'), 'utf8')
    expect(bundleImports(root).filter(s => s.startsWith('node:') || s.includes('run-js-node'))).toEqual([])
  })

  it('runs a program in a worker thread against a workspace of the main thread', async () => {
    const lib = await import(dist('index.js').href)
    const { workerThreads } = await import(dist('run-js-node.js').href)
    const threads = workerThreads({ size: 1 })
    try {
      const vfs = await lib.openVfs({ store: lib.memoryStore(), namespace: 'bundle', scope: 'threads' })
      await vfs.writeFile('/in.txt', 'from the host')
      const r = await lib
        .createRunJs({ vfs, executor: threads })
        .run(`const t = await vfs.read('/in.txt'); await vfs.write('/out.txt', t.toUpperCase()); console.log('hi'); return t.length`)
      expect(r).toMatchObject({ success: true, result: 13, logs: ['hi'], scriptPath: '/.run_js/run-001.js' })
      expect(await vfs.readFile('/out.txt', 'utf8')).toBe('FROM THE HOST')
    } finally {
      await threads.close()
    }
  }, 60_000)
})
