/**
 * The in-browser demo (demo/, issue 11) against the smallest app a user builds on agent-vfs
 * (bench/fixtures/plain-vite-app: a Vite app that imports only `agent-vfs`, opens a workspace on
 * IndexedDB, writes and lists a file). Both are built with `vite build` in this run, into temp
 * folders, and served by `vite preview` on loopback.
 *
 * - `demo.js.raw`, `demo.js.gzip`: bytes of all JavaScript the build emits (every .js under the
 *   output folder, workers and lazy chunks included; gzip level 9 per file, summed). Baseline: the
 *   plain app's.
 * - `demo.first-paint`: ms from navigation start to the first useful paint, in headless Chromium
 *   (Playwright), each load in a fresh context (empty HTTP cache and IndexedDB). "Useful" is the
 *   demo's sessions list on screen, for a visitor who connected in this tab before (the settings in
 *   localStorage, so the page starts its in-tab session host at once; a first visit shows the
 *   connection form and waits for Connect): the Web Worker started, IndexedDB opened, the host
 *   answered. For the plain app, the listing of its workspace. An init script watches the DOM for
 *   it and records `performance.now()` in the next animation frame (the frame that paints it).
 *   Demo and plain app alternate round by round.
 *
 * Findings (2 shared, busy cores, Chromium 156; December 2026): the demo emits 4.36 MiB of
 * JavaScript, 1.22 MiB gzip (×22 the plain app), of which the TypeScript stripper run_js loads
 * only for TypeScript programs is 959 KiB gzip and the session-host worker 225 KiB; the page's
 * entry (Preact, the panels) is 31 KiB gzip and the preview (Markdown, sanitiser, highlighting)
 * a lazy 28 KiB, against the plain app's 56 KiB (which carries the whole core: the root entry
 * does not shake down to openVfs + IndexedDB, and its build also emits QuickJS's 491 KiB wasm it
 * never loads). First useful paint: 336 ms (median of 7; 295–351) against 139 ms (107–157),
 * ×2.4: the demo starts a module worker that loads the session host and opens IndexedDB before
 * it can list sessions.
 *
 * Run: `node --import tsx bench/demo.bench.ts [filter]` (Chromium: CHROMIUM_PATH or /usr/bin/chromium).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { Browser } from 'playwright'
import { build, preview, type InlineConfig, type PreviewServer } from 'vite'
import { SETTINGS_KEY } from '../demo/src/api/settings-store.js'
import { launchChromium } from '../test/shared/chromium.js'
import { sourceEntries } from '../test/source-entries.ts'
import { Results, size, smoke, wanted } from './harness.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const BASELINE_LABEL =
  'a plain Vite app that imports only agent-vfs and opens a workspace (bench/fixtures/plain-vite-app), built in the same run'
const ROUNDS = size(7, 1)
const WARMUP = size(1, 0)

const READY_DEMO = `!!document.querySelector('[data-testid="session-list"]') ||
  /^No sessions/.test(document.querySelector('[aria-labelledby="sessions-heading"] p.hint')?.textContent ?? '')`

/**
 * How each app is built and what its first useful paint is. The demo uses its own config (as
 * `npm run build:demo` does); the plain app is built the same way: `agent-vfs` means this
 * repository's source, production mode, es2022 (top-level await).
 */
const apps: Record<'demo' | 'plain', { config: InlineConfig; ready: string; before?: string }> = {
  // The sessions panel shows the list, or says there is none yet, once the in-tab host answered.
  demo: {
    config: { configFile: join(root, 'vite.config.ts') },
    ready: READY_DEMO,
    before: `localStorage.setItem(${JSON.stringify(SETTINGS_KEY)}, JSON.stringify({ mode: 'tab' }))`,
  },
  plain: {
    config: {
      configFile: false,
      root: join(root, 'bench/fixtures/plain-vite-app'),
      resolve: { alias: sourceEntries() },
      build: { target: 'es2022' },
    },
    ready: `!!document.querySelector('main[data-ready]')`,
  },
}
type App = keyof typeof apps

const names = { raw: 'demo.js.raw', gzip: 'demo.js.gzip', paint: 'demo.first-paint' }
const wantSize = wanted(names.raw) || wanted(names.gzip)
const wantPaint = wanted(names.paint)
if (!wantSize && !wantPaint) process.exit(0)

/** Bytes of every .js file under `dir`, raw and gzipped (level 9, per file). */
function jsBytes(dir: string): { raw: number; gzip: number; files: number; each: string[] } {
  const out = { raw: 0, gzip: 0, files: 0, each: [] as string[] }
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name)
    if (!/\.m?js$/.test(name) || !statSync(path).isFile()) continue
    const data = readFileSync(path)
    const gzip = gzipSync(data, { level: 9 }).byteLength
    out.raw += data.byteLength
    out.gzip += gzip
    out.files++
    out.each.push(`${name} ${(data.byteLength / 1024).toFixed(1)} KiB / ${(gzip / 1024).toFixed(1)} KiB gzip`)
  }
  return out
}

/**
 * Loads `url` in a fresh context and returns ms from navigation start to the frame that paints
 * the first moment the JavaScript expression `ready` is true.
 */
async function firstUsefulPaint(browser: Browser, url: string, ready: string, before = ''): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', e => errors.push(e.message))
    // A string, not a function: tsx compiles functions with helpers (`__name`) the page lacks.
    await page.addInitScript(`{
      ${before}
      const check = () => {
        if (globalThis.__readyAt !== undefined || !(${ready})) return
        observer.disconnect()
        requestAnimationFrame(() => (globalThis.__readyAt = performance.now()))
      }
      const observer = new MutationObserver(check)
      observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true })
    }`)
    await page.goto(url)
    const handle = await page.waitForFunction('globalThis.__readyAt', undefined, { timeout: 120_000 }).catch((e: Error) => {
      throw new Error(`${url} never showed ${ready}: ${errors.join('; ') || e.message}`)
    })
    return (await handle.jsonValue()) as number
  } finally {
    await context.close()
  }
}

const dirs: string[] = []
const servers: PreviewServer[] = []
let browser: Browser | undefined
let failed = false
try {
  const out = {} as Record<App, string>
  for (const app of Object.keys(apps) as App[]) {
    const dir = mkdtempSync(join(tmpdir(), `agent-vfs-bench-${app}-`))
    dirs.push(dir)
    await build({
      ...apps[app].config,
      mode: 'production',
      logLevel: 'warn',
      build: { ...apps[app].config.build, outDir: dir, emptyOutDir: true },
    })
    out[app] = dir
  }
  const results = new Results('demo.json')

  if (wantSize) {
    const demo = jsBytes(out.demo)
    const plain = jsBytes(out.plain)
    console.error(`  JavaScript of the demo:\n    ${demo.each.join('\n    ')}\n  of the plain app:\n    ${plain.each.join('\n    ')}`)
    if (demo.files === 0 || plain.files === 0) throw new Error('a build emitted no JavaScript')
    for (const kind of ['raw', 'gzip'] as const) {
      if (!wanted(names[kind])) continue
      results.add({
        name: names[kind],
        unit: 'bytes',
        better: 'lower',
        ours: demo[kind],
        baseline: plain[kind],
        target: 'report',
        baselineLabel: BASELINE_LABEL,
      })
    }
  }

  if (wantPaint) {
    const urls = {} as Record<App, string>
    for (const app of Object.keys(apps) as App[]) {
      const server = await preview({
        ...apps[app].config,
        logLevel: 'warn',
        build: { outDir: out[app] },
        preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
      })
      servers.push(server)
      const url = server.resolvedUrls?.local[0]
      if (!url) throw new Error(`vite preview of ${app} reported no URL`)
      urls[app] = url
    }
    browser = await launchChromium()
    const times: Record<App, number[]> = { demo: [], plain: [] }
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (const app of Object.keys(apps) as App[]) {
        const t = await firstUsefulPaint(browser, urls[app], apps[app].ready, apps[app].before)
        if (i >= WARMUP) times[app].push(t)
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
    const fmt = (xs: number[]) => xs.map(x => x.toFixed(0)).join(', ')
    console.error(
      `  ${names.paint} (Chromium ${browser.version()}${smoke ? ', smoke' : ''}): demo [${fmt(times.demo)}] plain [${fmt(times.plain)}]`,
    )
    results.add({
      name: names.paint,
      unit: 'ms',
      better: 'lower',
      ours: median(times.demo),
      baseline: median(times.plain),
      target: 'report',
      baselineLabel: BASELINE_LABEL,
    })
  }
} catch (error) {
  failed = true
  console.error(error)
} finally {
  await browser?.close().catch(() => undefined)
  for (const s of servers) await s.close().catch(() => undefined)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
