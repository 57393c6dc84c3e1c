import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { sourceEntries } from '../source-entries.ts'
import { TS_VENDOR } from '../run-js/ts-vendor.ts'

// The `workers` project: the tests run inside workerd (the Workers runtime) through the pool
// plugin, with the real Worker of wrangler.toml (Durable Objects with SQLite storage, D1).
// Paths are resolved from the repository root, so the file works both as a project of the root
// config and on its own (`vitest run -c test/workers/vitest.config.ts`).
const root = fileURLToPath(new URL('../..', import.meta.url))

export default defineConfig(async () => {
  // wrangler.toml serves dist-demo/ (the built demo) as assets and the pool refuses a missing folder
  // (a fresh clone); wrangler itself makes it in its build step, which the pool does not run.
  mkdirSync(`${root}/dist-demo`, { recursive: true })
  const migrations = await readD1Migrations(`${root}/worker-edge/migrations`)
  return {
    root,
    // `agent-vfs` means the source; its TypeScript loader is the pre-bundled file the package ships,
    // because the pool cannot ship raw `typescript` into workerd ("Message is too large").
    resolve: { alias: sourceEntries({ 'agent-vfs/run-js/typescript': TS_VENDOR }) },
    plugins: [
      cloudflareTest({
        main: `${root}/worker-edge/src/index.ts`,
        wrangler: { configPath: `${root}/wrangler.toml` },
        // Read by apply-migrations.ts, which runs before every test file (storage is per file).
        // AGENT_VFS_JWT_SECRET: the Worker secret of the session API (test/workers/edge-*.test.ts sign with it).
        // AGENT_VFS_MCP_ORIGINS: the browser origin /sessions/{id}/mcp allows (test/workers/edge-mcp.test.ts).
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            AGENT_VFS_JWT_SECRET: 'test-only-secret-test-only-secret-0123',
            AGENT_VFS_MCP_ORIGINS: 'https://allowed.example',
          },
        },
      }),
    ],
    test: {
      name: 'workers',
      // As a project of the root config, vitest would otherwise root this project at test/workers, and the
      // pool then cannot resolve wasm imports from node_modules ("No such module …/@fs/…").
      root,
      // Absolute: as a project of the root config, vitest resolves these from this file's folder.
      dir: `${root}/test/workers`,
      include: ['**/*.test.ts'],
      setupFiles: [`${root}/test/workers/apply-migrations.ts`],
      // run_js: ts-blank-space pre-bundled for workerd (raw `typescript` is too large for the pool).
      // And the loopback servers of the run_js fetch suite (test/run-js/fetch-suite.ts).
      globalSetup: [`${root}/test/run-js/ts-vendor.ts`, `${root}/test/run-js/fetch-servers.ts`],
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  }
})
