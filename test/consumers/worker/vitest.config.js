import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [cloudflareTest({ main: './src/index-ts.js', wrangler: { configPath: './wrangler.toml' } })],
  test: { include: ['test/**/*.test.js'], testTimeout: 60_000 },
})
