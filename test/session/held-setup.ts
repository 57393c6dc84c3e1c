import type { AgentProfile } from '../../src/session/index.js'

/**
 * `base` whose every execution setup waits until `open()` is called, as a profile that loads its
 * tools or connects its model first would: between a message's 202 and the start of its execution
 * the session has acknowledged work and nothing running yet. `reached` resolves when a setup waits.
 */
export function heldSetup(base: AgentProfile) {
  let release!: () => void
  let reachedResolve!: () => void
  const gate = new Promise<void>(r => (release = r))
  const reached = new Promise<void>(r => (reachedResolve = r))
  const profile: AgentProfile = {
    ...base,
    async setup(e) {
      reachedResolve()
      await gate
      return base.setup(e)
    },
  }
  return { profile, open: () => release(), reached }
}
