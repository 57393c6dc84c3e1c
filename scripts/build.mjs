#!/usr/bin/env node
// Builds the published package: dist/index.js is ONE ESM file holding the core and every store
// (no chunks), plus type declarations. Runtime dependencies stay external (idb and friends) so users'
// bundlers dedupe them; nothing Node-specific may end up inside.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
// Peer dependencies (@mastra/core, for agent-vfs/mastra only) are never bundled either.
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
const entries = [
  { in: 'src/index.ts', out: 'index' },
  // agent-vfs/mastra (the only entry importing @mastra/core) and agent-vfs/run-js/workerd (the QuickJS
  // wasm imported as a module, which only Workers can do). Each is its own file; the core stays one file.
  { in: 'src/mastra/index.ts', out: 'mastra' },
  { in: 'src/run-js/runtime/workerd.ts', out: 'run-js-workerd' },
  // agent-vfs/session: the session host and its hono app (hono and @hono/zod-openapi stay external).
  { in: 'src/session/index.ts', out: 'session' },
]

rmSync('dist', { recursive: true, force: true })
const common = {
  entryPoints: entries,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  outdir: 'dist',
  splitting: false,
  // picomatch is CommonJS and probes process.platform for Windows; our paths are always POSIX.
  define: { 'process.platform': '"posix"' },
  mainFields: ['module', 'main'],
  external,
  legalComments: 'none',
  logLevel: 'warning',
}
await build(common)
// Minified copy only to measure what a user's bundle pays; not shipped.
const min = await build({ ...common, minify: true, write: false })
const minified = min.outputFiles.find((f) => f.path.endsWith('index.js')).contents

execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
mkdirSync('dist', { recursive: true })
writeFileSync('dist/index.d.ts', "export * from './types/src/index.js'\n")
writeFileSync('dist/mastra.d.ts', "export * from './types/src/mastra/index.js'\n")
writeFileSync('dist/run-js-workerd.d.ts', "export * from './types/src/run-js/runtime/workerd.js'\n")
writeFileSync('dist/session.d.ts', "export * from './types/src/session/index.js'\n")

const raw = readFileSync('dist/index.js')
const size = { bytes: raw.length, minified: minified.length, minifiedGzip: gzipSync(minified, { level: 9 }).length }
writeFileSync('dist/size.json', JSON.stringify(size, null, 2) + '\n')
console.log(`dist/index.js: ${kib(size.bytes)} raw, ${kib(size.minified)} minified, ${kib(size.minifiedGzip)} minified+gzip`)

function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`
}
