import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SOURCE_CONDITION } from '../../scripts/from-source.js'
import { wranglerEnv } from '../../scripts/wrangler-local.js'
import { runNpm, stopAllNpm } from '../shared/run-npm.js'

// Every script the README names runs from the sources, never from dist/ (a clone has none; an old
// one would run old code). Shown in a copy of the repository whose dist/ is planted with modules
// that throw "STALE DIST" on load, one per entry of package.json `exports` and `imports`: the
// scripts must do their work there without loading any of them. The planted modules re-export their
// entry's names, so that a script that did import them would link and run them, as with a real old build.
const root = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>
  exports: Record<string, unknown>
  imports: Record<string, unknown>
}
const TEST_TIMEOUT = 300_000
const MARK = 'STALE DIST'

/**
 * Every JavaScript file of dist/ that `exports` and `imports` name, with what an old build there would
 * offer: an entry's names (re-exported from its source, so that importing modules link as they would
 * against a real old build) and a throw when it runs.
 */
function distPlants(copy: string): Map<string, string> {
  const plants = new Map<string, string>()
  const walk = (v: unknown, source?: string) => {
    if (typeof v === 'string') {
      if (!v.startsWith('./dist/') || !v.endsWith('.js')) return
      const names = source ? `export * from '${pathToFileURL(join(copy, source)).href}'\n` : 'export default undefined\n'
      plants.set(v.slice(2), `${names}throw new Error('${MARK}: ' + import.meta.url)\n`)
    } else if (v && typeof v === 'object') {
      const own = (v as Record<string, unknown>)[SOURCE_CONDITION]
      for (const [key, value] of Object.entries(v)) if (key !== SOURCE_CONDITION) walk(value, typeof own === 'string' ? own : source)
    }
  }
  walk(pkg.exports)
  walk(pkg.imports)
  return plants
}

let copy: string
let scratch: string
beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'agent-vfs-stale-dist-'))
  scratch = join(copy, '.scratch')
  for (const part of [
    'package.json',
    'tsconfig.json',
    'wrangler.toml',
    'src',
    'adapters',
    'scripts',
    'fixtures',
    'examples',
    'worker-edge',
    'test/run-js',
  ])
    cpSync(join(root, part), join(copy, part), { recursive: true })
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'))
  for (const [target, text] of distPlants(copy)) {
    mkdirSync(dirname(join(copy, target)), { recursive: true })
    writeFileSync(join(copy, target), text)
  }
  mkdirSync(scratch)
})
afterAll(() => {
  stopAllNpm()
  if (copy) rmSync(copy, { recursive: true, force: true })
})

function expectNoStaleCode(output: string) {
  expect(output).not.toContain(MARK)
}

describe('a planted (stale) dist/ is never what runs', () => {
  it('the planted dist/ throws when loaded (so the tests below can fail)', { timeout: TEST_TIMEOUT }, async () => {
    expect([...distPlants(copy).keys()]).toEqual(expect.arrayContaining(['dist/index.js', 'dist/session.js', 'dist/quickjs-node.js']))
    // The package resolved without the source condition, as `npx tsx` did before: the plant is what loads.
    writeFileSync(join(scratch, 'probe.mjs'), "await import('agent-vfs')\n")
    const r = await runNpm(copy, ['exec', '--', 'node', '--import', 'tsx', join(scratch, 'probe.mjs')], { timeoutMs: 60_000 })
    expect(r.stderr).toContain(MARK)
  })

  it('npm start runs the job from the sources (run_js, QuickJS and its wasm included)', { timeout: TEST_TIMEOUT }, async () => {
    const out = join(scratch, 'out')
    const r = await runNpm(copy, ['start', '--', '--input', 'examples/sample', '--store', 'memory', '--out', out], { timeoutMs: 240_000 })
    expectNoStaleCode(r.stdout + r.stderr)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/■ e0001 completed/)
    expect(existsSync(join(out, 'appendix.md'))).toBe(true)
  })

  it('npm run import-folder runs from the sources', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(copy, ['run', 'import-folder', '--', '--data', join(scratch, 'data')], { timeoutMs: 240_000 })
    expectNoStaleCode(r.stdout + r.stderr)
    expect(r.code, r.stderr).toBe(0)
  })

  it('npm run serve starts from the sources, its run_js threads too', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(copy, ['run', 'serve'], {
      env: { PORT: '0', AGENT_VFS_DATA: join(scratch, 'serve'), AGENT_VFS_RUN_JS_THREADS: '1' },
      timeoutMs: 240_000,
      stopWhen: /dev token \(owner "dev"/,
    })
    expectNoStaleCode(r.stdout + r.stderr)
    expect(r.stdout).toMatch(/agent-vfs sessions on http:\/\/127\.0\.0\.1:\d+ \(PGlite in /)
    expect(r.stdout).toMatch(/run_js: .*worker threads/)
  })

  it(
    'npm run dev and dev:worker load the sources (stopped at their secret check, before any server)',
    { timeout: TEST_TIMEOUT },
    async () => {
      for (const script of ['dev', 'dev:worker']) {
        const r = await runNpm(copy, ['run', script], { env: { AGENT_VFS_JWT_SECRET: 'short' }, timeoutMs: 120_000 })
        expectNoStaleCode(r.stdout + r.stderr)
        expect(r.code, script).toBe(2)
        expect(r.stderr, script).toMatch(/AGENT_VFS_JWT_SECRET must be at least 32 characters/)
      }
    },
  )

  it('wrangler (dev:worker, dev) bundles the Worker from the sources', { timeout: TEST_TIMEOUT }, async () => {
    const env = Object.fromEntries(Object.entries(wranglerEnv()).filter((e): e is [string, string] => typeof e[1] === 'string'))
    const outdir = join(scratch, 'worker')
    const r = await runNpm(copy, ['exec', '--', 'wrangler', 'deploy', '--dry-run', '--outdir', outdir], { env, timeoutMs: 240_000 })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const bundle = readFileSync(join(outdir, 'index.js'), 'utf8')
    expectNoStaleCode(bundle)
    expect(bundle).toMatch(/src\/session\//)
  })

  it('a script started without the source condition refuses, before any of the old code runs', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(copy, ['exec', '--', 'tsx', 'scripts/serve.ts'], { env: { PORT: '0' }, timeoutMs: 120_000 })
    expect(r.code).toBe(2)
    expectNoStaleCode(r.stdout + r.stderr)
    expect(r.stderr).toMatch(
      /scripts\/serve\.ts runs from the sources, but here `agent-vfs` is .*dist\/index\.js \(a build, possibly old\)/,
    )
  })
})

describe('package.json', () => {
  it('every script that runs TypeScript starts Node with the source condition', () => {
    const ts = Object.entries(pkg.scripts).filter(([, command]) => /\.ts\b/.test(command))
    expect(ts.map(([name]) => name)).toEqual(expect.arrayContaining(['start', 'serve', 'dev', 'dev:worker', 'import-folder']))
    for (const [name, command] of ts) expect(command, name).toMatch(new RegExp(`^node --conditions=${SOURCE_CONDITION} --import tsx `))
    // The benches: scripts/bench.mjs starts each suite the same way.
    expect(readFileSync(join(root, 'scripts/bench.mjs'), 'utf8')).toContain(`'--conditions=${SOURCE_CONDITION}', '--import', 'tsx'`)
  })
})
