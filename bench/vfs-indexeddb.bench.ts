/**
 * Workspace writes on the IndexedDB store, measured in a real (headless) Chromium with the same
 * methodology as bench/vfs-sql.bench.ts, each side by side with a baseline in the same page:
 * - `vfs.write.concurrent.indexeddb`: 1,000 × 1 KB writes issued together through openVfs (group
 *   commit) vs. a naive write-through store (one awaited store commit per file, one after another);
 * - `vfs.write.sequential.indexeddb`: 1,000 awaited writeFile calls vs. the same naive store.
 *
 * The in-page module (src/index.ts + idb) is bundled with esbuild into a temp dir, served from a
 * throw-away node:http server on 127.0.0.1 (IndexedDB needs a real origin), and driven with
 * playwright; rounds are interleaved in the page and the medians come back through page.evaluate.
 *
 * Run: `node --import tsx bench/vfs-indexeddb.bench.ts [filter]`. Chromium: CHROMIUM_PATH or /usr/bin/chromium.
 */
import { build } from 'esbuild'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright'
import { Results, size, wanted } from './harness.js'

const NAMES = { concurrent: 'vfs.write.concurrent.indexeddb', sequential: 'vfs.write.sequential.indexeddb' } as const
const BASELINE_LABEL = '1,000 sequential awaited store commits, one file each (same IndexedDB, same page)'
const ROUNDS = size(5, 1)
const WARMUP = size(2, 0)
const FILES = size(1000, 20)

/**
 * Runs in the page. Mirrors bench/vfs-sql.bench.ts and harness.compareMedian: per round, an untimed
 * setup opens a workspace on a fresh scope, then ours and the baseline run one after the other.
 */
const pageModule = `
import { indexedDbStore, openVfs } from './src/index.js'

const FILES = ${FILES}
const KB = 1024
const payload = (i, size) => {
  const out = new Uint8Array(size)
  for (let j = 0; j < size; j++) out[j] = (i * 31 + j * 7) & 0xff
  return out
}
const small = Array.from({ length: FILES }, (_, i) => payload(i, KB))
let n = 0
const freshScope = () => 'bench-' + ++n
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]

async function naiveWrites(store, scope) {
  for (let i = 0; i < FILES; i++) {
    const op = { op: 'put', path: '/f/' + i + '.txt', kind: 'file', data: small[i], mtime: Date.now(), ctime: Date.now(), expectedVersion: null }
    await store.commit('bench', scope, [op])
  }
}

globalThis.runBench = async function runBench(kind, dbName, rounds, warmup) {
  await new Promise((resolve, reject) => {
    const r = indexedDB.deleteDatabase(dbName)
    r.onsuccess = resolve
    r.onerror = () => reject(r.error)
  })
  const store = indexedDbStore({ dbName })
  let scope = ''
  let vfs
  const setup = async () => {
    await vfs?.close?.()
    scope = freshScope()
    vfs = await openVfs({ store, namespace: 'bench', scope, autoRefresh: false })
    globalThis.gc?.()
  }
  const ours = kind === 'concurrent'
    ? () => Promise.all(small.map((d, i) => vfs.writeFile('/f/' + i + '.txt', d)))
    : async () => { for (let i = 0; i < FILES; i++) await vfs.writeFile('/f/' + i + '.txt', small[i]) }
  const baseline = () => naiveWrites(store, scope)
  const o = []
  const b = []
  for (let i = 0; i < warmup + rounds; i++) {
    for (const [fn, out] of [[ours, o], [baseline, b]]) {
      await setup()
      const t0 = performance.now()
      await fn()
      const t = performance.now() - t0
      if (i >= warmup) out.push(t)
    }
  }
  // Check that both sides really wrote: the last scope (baseline) holds all files.
  const check = await store.load('bench', scope)
  if (check.entries.length !== FILES) throw new Error('baseline wrote ' + check.entries.length + ' files, expected ' + FILES)
  await vfs?.close?.()
  await store.close()
  await new Promise((resolve) => { const r = indexedDB.deleteDatabase(dbName); r.onsuccess = r.onerror = r.onblocked = resolve })
  return { ours: median(o), baseline: median(b), oursAll: o, baselineAll: b }
}
globalThis.benchReady = true
`

const kinds = (['concurrent', 'sequential'] as const).filter(k => wanted(NAMES[k]))
if (kinds.length === 0) process.exit(0)

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'agent-vfs-idb-bench-'))
let server: Server | undefined
let browser: Browser | undefined
let failed = false
try {
  await build({
    stdin: { contents: pageModule, resolveDir: root, sourcefile: 'idb-bench-entry.js', loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    outfile: join(dir, 'bench.js'),
    logLevel: 'error',
  })
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>idb bench</title><script type="module" src="/bench.js"></script>\n',
  )
  const files: Record<string, [string, string]> = {
    '/': ['index.html', 'text/html; charset=utf-8'],
    '/bench.js': ['bench.js', 'text/javascript; charset=utf-8'],
  }
  server = createServer((req, res) => {
    const f = files[new URL(req.url ?? '/', 'http://x').pathname]
    if (!f) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': f[1], 'cache-control': 'no-store' }).end(readFileSync(join(dir, f[0])))
  })
  await new Promise<void>((resolve, reject) => server!.once('error', reject).listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  browser = await chromium.launch({
    headless: true,
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--js-flags=--expose-gc',
    ],
  })
  const page = await (await browser.newContext()).newPage()
  const pageErrors: string[] = []
  page.on('pageerror', e => pageErrors.push(String(e)))
  await page.goto(`http://127.0.0.1:${port}/`)
  await page
    .waitForFunction(() => (globalThis as { benchReady?: boolean }).benchReady === true, undefined, { timeout: 30_000 })
    .catch(e => {
      throw new Error(`bench module did not load: ${pageErrors.join('; ') || e}`)
    })
  const version = browser.version()

  const results = new Results('vfs.json')
  for (const kind of kinds) {
    const r = await page.evaluate(
      ([k, db, rounds, warmup]) =>
        (
          globalThis as unknown as {
            runBench: (...a: unknown[]) => Promise<{ ours: number; baseline: number; oursAll: number[]; baselineAll: number[] }>
          }
        ).runBench(k, db, rounds, warmup),
      [kind, `agent-vfs-bench-${kind}`, ROUNDS, WARMUP] as const,
    )
    const fmt = (xs: number[]) => xs.map(x => x.toFixed(1)).join(', ')
    console.error(`  ${NAMES[kind]} (Chromium ${version}): ours [${fmt(r.oursAll)}] baseline [${fmt(r.baselineAll)}]`)
    results.add({
      name: NAMES[kind],
      unit: 'ms',
      better: 'lower',
      ours: r.ours,
      baseline: r.baseline,
      target: kind === 'concurrent' ? 'report' : 'report only',
      baselineLabel: BASELINE_LABEL,
    })
  }
} catch (error) {
  failed = true
  console.error(error)
} finally {
  await browser?.close().catch(() => undefined)
  await new Promise<void>(resolve => (server ? server.close(() => resolve()) : resolve()))
  rmSync(dir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
