import { defineConfig } from 'vite'
import { sourceEntries } from './test/source-entries.ts'

/**
 * The demo app (demo/): `npm run dev` serves it with hot reload, `npm run build:demo` builds it
 * into dist-demo/, which the Worker serves as static assets (wrangler.toml `[assets]`). Vitest
 * does not read this file: vitest.config.ts comes first.
 *
 * In dev, the session API paths go to the local session host (AGENT_VFS_DEV_HOST, set by
 * scripts/dev.mjs), so "remote" mode uses the page's own origin there just as it does when the
 * Worker serves the built demo.
 */
const devHost = process.env.AGENT_VFS_DEV_HOST ?? 'http://127.0.0.1:8787'
const apiPaths = ['/sessions', '/openapi.json', '/ws', '/d1']

export default defineConfig({
  root: 'demo',
  // `agent-vfs` and its entries mean the sources here, as in the tests (one core module graph).
  resolve: { alias: sourceEntries() },
  // The in-tab host is a module worker (demo/src/runtime/worker.ts) that imports the library.
  worker: { format: 'es' },
  // The dependency scan starts from the worker too (it does not follow `new Worker(new URL(…))`), so
  // the first `npm run dev` does not find the worker's dependencies late and reload the page.
  optimizeDeps: { entries: ['index.html', 'src/runtime/worker.ts'] },
  build: {
    outDir: '../dist-demo',
    emptyOutDir: true,
    target: 'es2022',
    // QuickJS's wasm is an asset of its own (emscripten-module.wasm, fetched by the worker), never inlined.
    assetsInlineLimit: file => (file.endsWith('.wasm') ? false : undefined),
  },
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(apiPaths.map(p => [p, { target: devHost, changeOrigin: true }])),
  },
  preview: { host: '127.0.0.1' },
})
