#!/usr/bin/env node
// Builds the published package. dist/index.js is ONE self-contained ESM file: the core (workspace,
// stores, run_js, errors). Every other entry imports the core by its package name (`agent-vfs`, and
// `agent-vfs/internal` for what is not user API), which stays external here, so an app has exactly one
// core at run time (one VfsError, one registry).
// Runtime dependencies stay external too, so users' bundlers dedupe them; nothing Node-specific may
// end up inside.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { copyFileSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { OPTIONAL_PEERS, writePeerCheckedEntry } from './optional-peers.mjs'
import { buildTypeScriptLoader } from './typescript-loader.mjs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
/** This package's own entries: imported by name, never bundled into one another. */
const self = [pkg.name, `${pkg.name}/*`]
/** The package's private imports (package.json `imports`): resolved from dist/ at run time, never bundled. */
const privateImports = Object.keys(pkg.imports ?? {})

/**
 * The entries, one per line: `in` is the source, `out` the file in dist/ (plus `<out>.d.ts`). Registering
 * an entry takes this list and package.json `exports` (whose "agent-vfs:source" condition names the same
 * source, which tsconfig and vitest read); test/node/entries.test.ts checks that the two agree and that
 * the entry holds no copy of the core.
 * `core: true` is the core itself. `internal: true` is agent-vfs/internal: what the other entries need
 * from the core beyond its user API, re-exported from the core (see `coreEntry`), so it adds no copy.
 * `prebundled: true` is built by its own script. `isolate: true` is a script that runs in its own
 * JavaScript isolate (a worker thread), where the app's core is not reachable and would not be the same
 * object anyway: it bundles its own copy of the core (entries.test.ts allows exactly these files) and
 * everything else it needs but QuickJS's wasm, which the host thread sends (one CommonJS file), and the
 * entry that starts it carries it as text (see `isolateOptions`), so it is no package export and an
 * app's bundle needs no file beside it.
 */
const entries = [
  { in: 'src/index.ts', out: 'index', core: true },
  { in: 'src/internal.ts', out: 'internal', internal: true },
  // agent-vfs/agent: the agent runtime (zod lives here, not in the core).
  { in: 'src/agent/index.ts', out: 'agent' },
  // agent-vfs/mastra: the only entry importing @mastra/core.
  { in: 'src/mastra/index.ts', out: 'mastra' },
  // agent-vfs/run-js/workerd: QuickJS from an imported wasm module, which only Workers need.
  { in: 'src/runtimes/workerd/index.ts', out: 'run-js-workerd' },
  // agent-vfs/run-js/typescript: ts-blank-space + typescript, pre-bundled and minified (typescript-loader.mjs).
  { in: 'src/runtimes/typescript/index.ts', out: 'run-js-typescript', prebundled: true },
  // agent-vfs/run-js/node (worker threads) and the worker script it starts from its own directory.
  { in: 'src/runtimes/node/index.ts', out: 'run-js-node' },
  { in: 'src/runtimes/node/worker.ts', out: 'run-js-node-worker', isolate: true },
  // agent-vfs/session: the session host and its hono app (hono and @hono/zod-openapi stay external).
  { in: 'src/session/index.ts', out: 'session' },
  // agent-vfs/mcp: MCP in and out (@modelcontextprotocol/sdk stays external); only hosts import it.
  { in: 'src/mcp/index.ts', out: 'mcp' },
  // agent-vfs/bash: a shell over the workspace (just-bash, an optional peer, stays external).
  { in: 'src/bash/index.ts', out: 'bash' },
  // agent-vfs/client: a client of the session API (browsers, Node, Workers); imports nothing at run time.
  { in: 'src/client/index.ts', out: 'client' },
  // agent-vfs/react: hooks over the client (react, an optional peer, stays external).
  { in: 'src/react/index.ts', out: 'react' },
  // agent-vfs/ai-sdk-ui: a session as the AI SDK's ChatTransport (imports only the client; `ai` is a types-only peer).
  { in: 'src/ai-sdk-ui/index.ts', out: 'ai-sdk-ui' },
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
const external = entry =>
  // The core must not import itself by name; every other entry must not bundle it, except a script
  // for its own isolate (see `entries`). node: built-ins appear only in the Node entries
  // (test/shared/bundle-checks.ts keeps them out of index.js). The private imports resolve from dist/.
  [...privateImports, ...(entry.core || entry.isolate ? [...dependencies, 'node:*'] : [...dependencies, ...self, 'node:*', 'cloudflare:*'])]

/**
 * The names agent-vfs/internal exports at run time (its types are erased): dist/index.js carries each
 * under a hidden name, and dist/internal.js re-exports them from `agent-vfs`. So dist/index.js stays one
 * self-contained file whose typed API is the user API, and there is still one core (one copy of every
 * class) however many entries an app imports. Plain named exports, so bundlers drop the unused ones.
 */
const INTERNAL_PREFIX = '__internal_'
const internalEntry = entries.find(e => e.internal)
const probe = await build({
  ...common,
  entryPoints: [internalEntry.in],
  external: external(internalEntry),
  write: false,
  metafile: true,
})
const internalNames = Object.values(probe.metafile.outputs).find(o => o.entryPoint)?.exports ?? []

/** The core is built from src/index.ts plus the internal bindings under their hidden names. */
function coreEntry(entry) {
  const hidden = internalNames.map(n => `${n} as ${INTERNAL_PREFIX}${n}`).join(', ')
  const contents = `export * from './${entry.in}'\nexport { ${hidden} } from './${internalEntry.in}'\n`
  return {
    stdin: { contents, resolveDir: process.cwd(), sourcefile: `${entry.out}-with-internals.ts`, loader: 'ts' },
    outdir: undefined,
    outfile: `dist/${entry.out}.js`,
  }
}

const options = entry =>
  entry.isolate
    ? isolateOptions(entry)
    : {
        ...common,
        ...(entry.core ? coreEntry(entry) : { entryPoints: [{ in: entry.in, out: entry.out }] }),
        external: external(entry),
        plugins: [...common.plugins, isolateAsText()],
      }
// Isolate scripts first: the entries that start them embed their text.
const bundled = entries.filter(e => !e.internal && !e.prebundled).sort((a, b) => Number(!!b.isolate) - Number(!!a.isolate))
for (const entry of bundled) {
  const result = await build({ ...options(entry), metafile: true })
  // An entry with optional peers gets the file Node imports it through (scripts/optional-peers.mjs).
  if (OPTIONAL_PEERS[entry.out]) {
    const exports = Object.values(result.metafile.outputs).find(o => o.entryPoint)?.exports ?? []
    writePeerCheckedEntry(pkg, entry.out, exports)
  }
}
writeFileSync(
  `dist/${internalEntry.out}.js`,
  "// agent-vfs/internal: INTERNAL, no semver promise (docs/internal.md). The core's own bindings, from the\n" +
    '// hidden names dist/index.js exports them under (scripts/build.mjs): one core at run time.\n' +
    `export {\n${internalNames.map(n => `  ${INTERNAL_PREFIX}${n} as ${n}`).join(',\n')}\n} from "${pkg.name}";\n`,
)
copyFileSync(createRequire(import.meta.url).resolve(WASM_SPECIFIER), 'dist/quickjs.wasm')
await buildNodeQuickJs()
// The D1 session index of agent-vfs/worker, for `migrations_dir = "node_modules/agent-vfs/dist/migrations"`.
mkdirSync('dist/migrations')
copyFileSync('worker-edge/migrations/0002_sessions.sql', 'dist/migrations/0001_sessions.sql')
copyFileSync('worker-edge/migrations/0003_running.sql', 'dist/migrations/0002_running.sql')
copyFileSync('worker-edge/migrations/0004_usage.sql', 'dist/migrations/0003_usage.sql')
for (const entry of entries.filter(e => e.prebundled)) await buildTypeScriptLoader(`dist/${entry.out}.js`, entry.in)

execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
mkdirSync('dist', { recursive: true })
for (const entry of entries) {
  const types = `./types/${entry.in.replace(/\.ts$/, '.js')}`
  const hasDefault = /^export default /m.test(readFileSync(entry.in, 'utf8'))
  writeFileSync(`dist/${entry.out}.d.ts`, `export * from '${types}'\n` + (hasDefault ? `export { default } from '${types}'\n` : ''))
}

// What each entry costs a user: raw, minified, minified + gzip (minified copies are measured, not shipped).
const size = {}
for (const entry of bundled) {
  const min = await build({ ...options(entry), minify: true, write: false })
  const minified = min.outputFiles.find(f => f.path.endsWith('.js')).contents
  size[`${entry.out}.js`] = measure(readFileSync(`dist/${entry.out}.js`), minified)
}
for (const entry of entries.filter(e => e.internal || e.prebundled)) {
  const file = readFileSync(`dist/${entry.out}.js`)
  size[`${entry.out}.js`] = measure(file, file)
}
const wasm = readFileSync('dist/quickjs.wasm')
size['quickjs.wasm'] = measure(wasm, wasm)
writeFileSync('dist/size.json', JSON.stringify(size, null, 2) + '\n')
for (const [file, s] of Object.entries(size))
  console.log(`dist/${file}: ${kib(s.bytes)} raw, ${kib(s.minified)} minified, ${kib(s.minifiedGzip)} minified+gzip`)

/**
 * A script for its own isolate (a worker thread): one CommonJS file with everything in it, node: built-ins
 * aside, started as code (`new Worker(code, { eval: true })`, where a script is CommonJS and has no
 * `import.meta`). QuickJS's JavaScript is inside (the `workerd` build, which reads neither
 * `import.meta.url` nor `require`); its wasm is not: the host thread sends the compiled module
 * (src/runtimes/node/quickjs-module.ts), so `#quickjs-node` is nothing here. The file itself is not
 * published (package.json `files`): the entry that starts it carries its text.
 */
function isolateOptions(entry) {
  const noQuickJsNode = {
    name: 'quickjs-node-none',
    setup(b) {
      b.onResolve({ filter: /^#quickjs-node$/ }, () => ({ path: 'quickjs-none', namespace: 'none' }))
      b.onLoad({ filter: /.*/, namespace: 'none' }, () => ({ contents: 'export default undefined\n', loader: 'js' }))
    },
  }
  return {
    ...common,
    entryPoints: [{ in: entry.in, out: entry.out }],
    format: 'cjs',
    conditions: ['workerd'],
    external: ['node:*'],
    plugins: [noQuickJsNode],
  }
}

/** `./worker-script.js` (src/runtimes/node/worker-script.ts) becomes the built worker script's text. */
function isolateAsText() {
  return {
    name: 'isolate-script-as-text',
    setup(b) {
      b.onResolve({ filter: /\/worker-script\.js$/ }, () => ({ path: 'run-js-node-worker', namespace: 'isolate-text' }))
      b.onLoad({ filter: /.*/, namespace: 'isolate-text' }, args => ({
        contents: `const code = ${JSON.stringify(readFileSync(`dist/${args.path}.js`, 'utf8'))}\nexport default () => code\n`,
        loader: 'js',
      }))
    },
  }
}

/** `./wasm-bytes.js` of src/runtimes/quickjs-node becomes the QuickJS wasm, base64 in the file. */
function wasmBytesInline() {
  const base64 = readFileSync(createRequire(import.meta.url).resolve(WASM_SPECIFIER)).toString('base64')
  return {
    name: 'quickjs-wasm-bytes-inline',
    setup(b) {
      b.onResolve({ filter: /^\.\/wasm-bytes\.js$/ }, () => ({ path: 'quickjs-wasm-bytes', namespace: 'inline' }))
      b.onLoad({ filter: /.*/, namespace: 'inline' }, () => ({
        contents: `const base64 = ${JSON.stringify(base64)}\nexport default () => globalThis.Buffer.from(base64, 'base64')\n`,
        loader: 'js',
      }))
    },
  }
}

/**
 * `#quickjs-node` (src/runtimes/quickjs-node/index.ts): the release variant and its wasm as base64, one
 * file, for Node only; every other condition gets dist/quickjs-none.js. Built with the `workerd`
 * condition: that emscripten build reads neither `import.meta.url` nor `require`, so the file works
 * inside a user's CJS or ESM bundle.
 */
async function buildNodeQuickJs() {
  await build({
    ...common,
    entryPoints: [{ in: 'src/runtimes/quickjs-node/index.ts', out: 'quickjs-node' }],
    conditions: ['workerd'],
    plugins: [wasmBytesInline()],
  })
  writeFileSync('dist/quickjs-none.js', '// #quickjs-node outside Node: nothing (see quickjs-node.js).\nexport default undefined\n')
}

function measure(raw, minified) {
  return { bytes: raw.length, minified: minified.length, minifiedGzip: gzipSync(minified, { level: 9 }).length }
}
function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`
}
