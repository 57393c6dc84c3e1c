import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { sourceEntries } from './test/source-entries.ts'

// Debian's Chromium (scripts/ensure-chromium.sh installs it); test tools cannot download browsers here.
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

export default defineConfig({
  // `agent-vfs` and its subpaths mean the source here (tests and secondary entries share one core).
  resolve: { alias: sourceEntries() },
  test: {
    testTimeout: 60_000,
    // PGlite start-up and first wasm compiles exceed the default 10 s on two busy cores.
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: 'node', environment: 'node', include: ['test/node/**/*.test.ts'] },
      },
      {
        extends: true,
        // Keep PGlite out of Vite's pre-bundling, or Vite reloads the page mid-run.
        optimizeDeps: { exclude: ['@electric-sql/pglite'], include: ['ts-blank-space', '@hono/zod-openapi', 'hono/jwt', 'hono/streaming', 'hono/body-limit', 'hono/http-exception'] },
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: chromium, args: chromiumArgs } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      // The workers project runs in workerd through @cloudflare/vitest-pool-workers; its own config.
      './test/workers/vitest.config.ts',
    ],
  },
})
