import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { dryRunDeploy, root } from '../../scripts/wrangler-local.js'

// This repository's Worker (wrangler.toml) as `wrangler deploy --minify` would upload it: the free
// plan takes at most 3 MiB compressed. Figures land in .tmp/worker-size.json (test/consumers/SIZES.md
// and the README quote them).
const FREE_PLAN_GZIP_KIB = 3 * 1024
const tmp = mkdtempSync(join(tmpdir(), 'agent-vfs-worker-size-'))
const sizes: Record<string, { totalKiB: number; gzipKiB: number }> = {}

afterAll(() => {
  mkdirSync(`${root}.tmp`, { recursive: true })
  writeFileSync(`${root}.tmp/worker-size.json`, JSON.stringify(sizes, null, 2) + '\n')
  rmSync(tmp, { recursive: true, force: true })
})

const variants = [
  ['javascript', undefined, 'as configured: run_js takes JavaScript programs (typescript: false)'],
  ['typescript', 'test/workers/worker-typescript.ts', 'with the TypeScript loader in run_js'],
] as const

for (const [name, main, what] of variants) {
  it(`wrangler deploy --dry-run --minify, ${what}: under the free plan's 3 MiB gzip, QuickJS's wasm a module`, async () => {
    const out = join(tmp, name)
    const { totalKiB, gzipKiB, output } = await dryRunDeploy(out, main)
    sizes[name] = { totalKiB, gzipKiB }
    expect(gzipKiB).toBeLessThan(FREE_PLAN_GZIP_KIB)
    const files = readdirSync(out)
    // The wasm travels as its own module (Workers may not compile wasm from bytes).
    expect(files.filter(f => f.endsWith('-wasm') || f.endsWith('.wasm')).map(f => statSync(join(out, f)).size)).toEqual([
      expect.any(Number),
    ])
    // The session object and the workspace object are in it, with the D1 index.
    expect(output).toMatch(/env\.SESSIONS \(SessionObject\)/)
    expect(output).toMatch(/env\.WORKSPACE \(WorkspaceObject\)/)
    expect(output).toMatch(/env\.DB \(agent-vfs\)/)
  }, 240_000)
}
