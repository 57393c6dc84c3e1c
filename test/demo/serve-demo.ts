import { fileURLToPath } from 'node:url'
import { build, preview, type PreviewServer } from 'vite'
import { apiProxy } from './api-proxy.js'

/**
 * The repository root: the demo's `vite.config.ts` lives there (`npm run build:demo`). Vite reads
 * the config's relative `root` against the working directory, which is this folder in vitest and
 * in `npm run bench`, so no `root` is passed here.
 */
export const root = fileURLToPath(new URL('../..', import.meta.url))
const configFile = `${root}vite.config.ts`

/** Builds the demo once, as `npm run build:demo` does (the output folder is the config's: dist-demo/). */
export async function buildDemo(): Promise<void> {
  await build({ configFile, mode: 'production', logLevel: 'warn' })
}

/** A served build of the demo. */
export interface ServedDemo {
  /** Origin and base of the page, ending in `/`. */
  url: string
  close(): Promise<void>
}

/**
 * Serves the built demo with `vite preview` on a free loopback port. With `api`, requests under
 * `/sessions` are forwarded to that session host (test/demo/api-proxy.ts), so the page reaches the
 * host on its own origin, as it does when the Worker serves the demo as static assets (the session
 * API sends no CORS headers).
 */
export async function serveDemo(options: { api?: string } = {}): Promise<ServedDemo> {
  const server: PreviewServer = await preview({
    configFile,
    logLevel: 'warn',
    ...(options.api ? { plugins: [apiProxy(options.api)] } : {}),
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  })
  const url = server.resolvedUrls?.local[0]
  if (!url) throw new Error('vite preview did not report its URL')
  return { url, close: () => server.close() }
}
