import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: 'node', environment: 'node', include: ['test/node/**/*.test.ts'] },
      },
    ],
  },
})
