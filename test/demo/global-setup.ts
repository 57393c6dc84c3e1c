import { existsSync } from 'node:fs'
import type { TestProject } from 'vitest/node'
import { buildDemo, root, serveDemo } from './serve-demo.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built demo served by `vite preview` on loopback (in-tab mode needs nothing else). */
    demoUrl: string
  }
}

/**
 * The `demo` project's global setup: builds the demo once (`vite build` through the top-level
 * vite.config.ts, into dist-demo/), serves it on a free loopback port for every test file, and
 * stops the server at the end. `DEMO_SKIP_BUILD=1` reuses dist-demo/ (while iterating on tests).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(`${root}vite.config.ts`))
    throw new Error('the demo tests need the demo: vite.config.ts is missing at the top of the repository')
  if (process.env.DEMO_SKIP_BUILD !== '1' || !existsSync(`${root}dist-demo/index.html`)) await buildDemo()
  const served = await serveDemo()
  project.provide('demoUrl', served.url)
  return () => served.close()
}
