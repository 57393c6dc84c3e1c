import type { AgentProfile } from '../../src/session/index.js'
import { appendixProfile } from './edge-harness.js'

/**
 * The appendix whose first run hangs at model call `at`, as a slow model would, while a test resets
 * every Durable Object; later runs go through. The hang is a promise of the object's own (one from
 * the test would tie the test to the dead instance); the test sees it through a plain flag.
 */
export function hangingOnce(at: number) {
  const base = appendixProfile()
  const state = { runs: 0, reached: false }
  const profile: AgentProfile = {
    async setup(e) {
      const s = await base.setup(e)
      if (++state.runs > 1) return s
      let n = 0
      return {
        ...s,
        model: {
          ...s.model,
          doGenerate: async o => {
            if (++n === at) {
              state.reached = true
              await new Promise(() => undefined)
            }
            return s.model.doGenerate(o)
          },
        },
      }
    },
  }
  return { profile, state }
}
