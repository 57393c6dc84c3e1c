import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs } from '../../src/index.js'
import { MEMORY_BOMBS } from '../run-js/bombs.js'

const MIB = 1024 * 1024
const LIMIT = 64 * MIB

/**
 * The memory cap holds for the process, not just for QuickJS's bookkeeping: after each bomb, with the
 * default 64 MiB limit, RSS is within 2 × the limit + 32 MB of where the run started.
 */
describe('run_js memory bombs and process RSS (node)', () => {
  const bombs: Record<string, string> = {
    ...MEMORY_BOMBS,
    'one huge allocation': `return new Uint8Array(1024 * 1024 * 1024).length`,
  }
  for (const [kind, program] of Object.entries(bombs)) {
    it(`${kind}: memory error, RSS bounded`, async () => {
      const vfs = await openVfs({ store: memoryStore(), namespace: 'rss', scope: kind })
      const runJs = createRunJs({ vfs, limits: { memoryBytes: LIMIT, timeMs: 60_000 } })
      await runJs.run('return 1') // load the module before measuring
      const before = process.memoryUsage().rss
      let peak = before
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
      const r = await runJs.run(program)
      clearInterval(sampler)
      const after = process.memoryUsage().rss
      expect(r.success).toBe(false)
      expect(r.error?.message).toMatch(/out of memory/)
      expect(after - before).toBeLessThan(2 * LIMIT + 32 * MIB)
      expect(peak - before).toBeLessThan(2 * LIMIT + 32 * MIB)
      expect((await runJs.run('return 2')).result).toBe(2)
    }, 60_000)
  }
})
