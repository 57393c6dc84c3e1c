import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [cloudflareTest({ main: './src/index-ts.js', wrangler: { configPath: './wrangler.toml' } })],
  // Long: the first TypeScript program loads the 3.5 MB loader through the plugin, tens of seconds on a busy machine.
  test: { include: ['test/**/*.test.js'], testTimeout: 180_000 },
})
