import type { AgentProfile } from 'agent-vfs/session'

/**
 * The profile with every model call delayed by `delayMs` (honouring aborts), so a person can watch
 * a run live, or interrupt it, where the scripted model would finish in a blink. `delayMs` of 0 or
 * less returns the profile unchanged.
 */
export function pacedProfile(profile: AgentProfile, delayMs: number): AgentProfile {
  if (!(delayMs > 0)) return profile
  return {
    ...profile,
    async setup(e) {
      const s = await profile.setup(e)
      return {
        ...s,
        model: {
          ...s.model,
          doGenerate: async (o) => {
            await new Promise<void>((res, rej) => {
              const signal = o.abortSignal
              if (signal?.aborted) return rej(signal.reason)
              const t = setTimeout(res, delayMs)
              signal?.addEventListener('abort', () => (clearTimeout(t), rej(signal.reason)), { once: true })
            })
            return s.model.doGenerate(o)
          },
        },
      }
    },
  }
}
