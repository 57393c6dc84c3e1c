import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { sourceEntries } from './test/source-entries.ts'
import { chromiumArgs, chromiumPath } from './test/shared/chromium.ts'

export default defineConfig({
  // `agent-vfs` and its subpaths mean the source here (tests and secondary entries share one core).
  resolve: { alias: sourceEntries() },
  test: {
    testTimeout: 60_000,
    // Two files at once even on two cores (vitest's default there is one): most files wait on child
    // processes, sockets and timers, so one lane left a core idle and CI near its 30-minute cap. The
    // suite holds at load 10 with two lanes (tests may not depend on a quiet machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
        optimizeDeps: {
          exclude: ['@electric-sql/pglite'],
          include: [
            'ts-blank-space',
            '@hono/zod-openapi',
            'hono/jwt',
            'hono/streaming',
            'hono/body-limit',
            'hono/http-exception',
            // Pre-bundled together before the first test: React found mid-run would come twice (hooks then fail).
            'react',
            'react-dom/client',
            '@ai-sdk/react',
          ],
        },
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          // Loopback servers for the run_js fetch suite (test/run-js/fetch-suite.ts), with CORS.
          globalSetup: ['test/run-js/fetch-servers.ts'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: chromiumPath, args: chromiumArgs } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        extends: true,
        // The demo (demo/) built once and driven by Playwright from Node in Debian's Chromium; see
        // test/demo/global-setup.ts. Its files share the two lanes with the node files: one file at a
        // time (fileParallelism: false) made vitest run them last, alone, 10 minutes of one busy lane
        // at the end of CI (the flows hold at load 18 and time nothing against the clock).
        test: {
          name: 'demo',
          environment: 'node',
          include: ['test/demo/**/*.test.ts'],
          globalSetup: ['test/demo/global-setup.ts'],
          testTimeout: 300_000,
        },
      },
      // The workers project runs in workerd through @cloudflare/vitest-plugin; its own config.
      './test/workers/vitest.config.ts',
    ],
  },
})
