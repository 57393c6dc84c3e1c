#!/usr/bin/env node
// Builds the published package. dist/index.js is ONE self-contained ESM file: the core (workspace,
// stores, run_js, errors). Every other entry imports the core by its package name (`agent-vfs`),
// which stays external here, so an app has exactly one core at run time (one VfsError, one registry).
// Runtime dependencies stay external too, so users' bundlers dedupe them; nothing Node-specific may
// end up inside.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { copyFileSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { buildTypeScriptLoader } from './typescript-loader.mjs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
/** This package's own entries: imported by name, never bundled into one another. */
const self = [pkg.name, `${pkg.name}/*`]
/** The package's private imports (package.json `imports`): resolved from dist/ at run time, never bundled. */
const privateImports = Object.keys(pkg.imports ?? {})

/**
 * The bundled entries: `in` is the source, `out` the file in dist/ (plus `<out>.d.ts`). A new entry
 * also goes into package.json `exports`, the `paths` of tsconfig.json and test/workers/tsconfig.json,
 * and test/source-entries.ts; test/node/entries.test.ts then checks it holds no copy of the core.
 * `core: true` is the core itself. `isolate: true` is a script that runs in its own JavaScript isolate
 * (a worker thread), where the app's core is not reachable and would not be the same object anyway:
 * it bundles its own copy of the core (entries.test.ts allows exactly these files).
 */
const entries = [
  { in: 'src/index.ts', out: 'index', core: true },
  // agent-vfs/agent: the agent runtime (zod lives here, not in the core).
  { in: 'src/agent/index.ts', out: 'agent' },
  // agent-vfs/mastra: the only entry importing @mastra/core.
  { in: 'src/mastra/index.ts', out: 'mastra' },
  // agent-vfs/run-js/workerd: QuickJS from an imported wasm module, which only Workers need.
  { in: 'src/run-js/runtime/workerd.ts', out: 'run-js-workerd' },
  // agent-vfs/run-js/node (worker threads) and the worker script it starts from its own directory.
  { in: 'src/run-js/node/index.ts', out: 'run-js-node' },
  { in: 'src/run-js/node/worker.ts', out: 'run-js-node-worker', isolate: true },
  // agent-vfs/session: the session host and its hono app (hono and @hono/zod-openapi stay external).
  { in: 'src/session/index.ts', out: 'session' },
  // agent-vfs/worker: sessions on Cloudflare Workers (Durable Objects, D1); imports cloudflare:workers.
  { in: 'src/worker/index.ts', out: 'worker' },
]

// The QuickJS wasm ships as dist/quickjs.wasm and the workerd entry imports it by that name:
// wrangler's default rules load `**/*.wasm` as CompiledWasm, but not the variant's bare `/wasm` subpath.
const WASM_SPECIFIER = '@jitl/quickjs-wasmfile-release-sync/wasm'
const wasmAsSibling = {
  name: 'quickjs-wasm-as-sibling',
  setup(b) {
    b.onResolve({ filter: /^@jitl\/quickjs-wasmfile-release-sync\/wasm$/ }, () => ({ path: './quickjs.wasm', external: true }))
  },
}

rmSync('dist', { recursive: true, force: true })
const common = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  outdir: 'dist',
  splitting: false,
  mainFields: ['module', 'main'],
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [wasmAsSibling],
}
const options = (entry) => ({
  ...common,
  entryPoints: [{ in: entry.in, out: entry.out }],
  // The core must not import itself by name; every other entry must not bundle it, except a script
  // for its own isolate (see `entries`). node: built-ins appear only in the Node entries
  // (test/shared/bundle-checks.ts keeps them out of index.js).
  external: [...privateImports, ...(entry.core || entry.isolate ? [...dependencies, 'node:*'] : [...dependencies, ...self, 'node:*', 'cloudflare:*'])],
})
for (const entry of entries) await build(options(entry))
copyFileSync(createRequire(import.meta.url).resolve(WASM_SPECIFIER), 'dist/quickjs.wasm')
await buildNodeQuickJs()
// The D1 session index of agent-vfs/worker, for `migrations_dir = "node_modules/agent-vfs/dist/migrations"`.
mkdirSync('dist/migrations')
copyFileSync('worker-edge/migrations/0002_sessions.sql', 'dist/migrations/0001_sessions.sql')
// agent-vfs/run-js/typescript: ts-blank-space + typescript, pre-bundled and minified.
await buildTypeScriptLoader('dist/run-js-typescript.js')

execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
mkdirSync('dist', { recursive: true })
for (const entry of entries) writeFileSync(`dist/${entry.out}.d.ts`, `export * from './types/${entry.in.replace(/\.ts$/, '.js')}'\n`)
writeFileSync('dist/run-js-typescript.d.ts', "export { default } from './types/src/run-js/runtime/typescript.js'\n")

// What each entry costs a user: raw, minified, minified + gzip (minified copies are measured, not shipped).
const size = {}
for (const entry of entries) {
  const min = await build({ ...options(entry), minify: true, write: false })
  const minified = min.outputFiles.find((f) => f.path.endsWith('.js')).contents
  size[`${entry.out}.js`] = measure(readFileSync(`dist/${entry.out}.js`), minified)
}
const loader = readFileSync('dist/run-js-typescript.js')
size['run-js-typescript.js'] = measure(loader, loader)
const wasm = readFileSync('dist/quickjs.wasm')
size['quickjs.wasm'] = measure(wasm, wasm)
writeFileSync('dist/size.json', JSON.stringify(size, null, 2) + '\n')
for (const [file, s] of Object.entries(size)) console.log(`dist/${file}: ${kib(s.bytes)} raw, ${kib(s.minified)} minified, ${kib(s.minifiedGzip)} minified+gzip`)

/**
 * `#quickjs-node` (src/run-js/runtime/quickjs-node.ts): the release variant and its wasm as base64, one
 * file, for Node only; every other condition gets dist/quickjs-none.js. Built with the `workerd`
 * condition: that emscripten build reads neither `import.meta.url` nor `require`, so the file works
 * inside a user's CJS or ESM bundle.
 */
async function buildNodeQuickJs() {
  const base64 = readFileSync('dist/quickjs.wasm').toString('base64')
  const embedBytes = {
    name: 'quickjs-wasm-bytes-inline',
    setup(b) {
      b.onResolve({ filter: /\/quickjs-wasm-bytes\.js$/ }, () => ({ path: 'quickjs-wasm-bytes', namespace: 'inline' }))
      b.onLoad({ filter: /.*/, namespace: 'inline' }, () => ({
        contents: `const base64 = ${JSON.stringify(base64)}\nexport default () => globalThis.Buffer.from(base64, 'base64')\n`,
        loader: 'js',
      }))
    },
  }
  await build({
    ...common,
    entryPoints: [{ in: 'src/run-js/runtime/quickjs-node.ts', out: 'quickjs-node' }],
    conditions: ['workerd'],
    plugins: [embedBytes],
  })
  writeFileSync('dist/quickjs-none.js', '// #quickjs-node outside Node: nothing (see quickjs-node.js).\nexport default undefined\n')
}

function measure(raw, minified) {
  return { bytes: raw.length, minified: minified.length, minifiedGzip: gzipSync(minified, { level: 9 }).length }
}
function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`
}
