import { defineConfig } from 'vitest/config'

// Placeholder until the workers project (workerd via @cloudflare/vitest-pool-workers) is wired.
export default defineConfig({ test: { name: 'workers', include: ['test/workers/**/*.test.ts'], passWithNoTests: true } })
