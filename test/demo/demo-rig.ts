import type { Browser } from 'playwright'
import { afterAll, beforeAll } from 'vitest'
import { openBrowser } from './browser.js'
import { startNodeHost, type NodeHost } from './node-host.js'
import { serveDemo, type ServedDemo } from './serve-demo.js'

/**
 * What a remote-mode demo test drives: Chromium, the Node session host (`npm run serve`) and the built
 * demo served with that host behind its own origin (the host sends no CORS headers). `host` may be
 * replaced (a test that restarts it assigns `rig.host = await rig.host.restart()`): the preview's proxy
 * points at the same port, so the page keeps its origin.
 */
export interface DemoRig {
  browser: Browser
  host: NodeHost
  demo: ServedDemo
}

/**
 * Starts the rig before the file's tests and stops it after them (also when a start failed half way).
 * Read its fields inside tests and hooks, not at the top of the file: they are set by `beforeAll`.
 */
export function useDemoRig(): DemoRig {
  const rig = {} as Partial<DemoRig>
  beforeAll(async () => {
    rig.browser = await openBrowser()
    rig.host = await startNodeHost()
    rig.demo = await serveDemo({ api: rig.host.url })
  }, 300_000)
  afterAll(async () => {
    await rig.browser?.close()
    await rig.demo?.close()
    await rig.host?.stop()
  })
  return rig as DemoRig
}
