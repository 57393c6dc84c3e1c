import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import type { StoreOp, VfsStore } from '../../src/contract/store.js'
import type { AgentProfile, SessionEvent, SessionHost } from '../../src/session/index.js'

/** A small season: enough for every step of the appendix task, fast under load. */
export const season = () => generateEpisodes({ count: 6 }).files

/**
 * `store` whose every commit first runs `before(scope, ops)`: a hook that throws fails that commit
 * (a host dying at that write, nothing of it written), one that waits holds the commit back.
 */
export function beforeCommits(store: VfsStore, before: (scope: string, ops: StoreOp[]) => void | Promise<void>): VfsStore {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target)
      if (key !== 'commit') return typeof value === 'function' ? value.bind(target) : value
      return async (...args: Parameters<VfsStore['commit']>) => {
        await before(args[1], args[2])
        return target.commit(...args)
      }
    },
  })
}

/** Uploads the season into /context. */
export async function uploadSeason(host: SessionHost, id: string): Promise<void> {
  await host.writeFiles(
    id,
    Object.entries(season()).map(([p, data]) => ({ path: `/context/${p}`, data })),
  )
}

/** Waits until the session has no work in progress in `host` and its status is one of `statuses`. */
export async function until(host: SessionHost, id: string, statuses: string[], timeoutMs = 60_000): Promise<string> {
  const start = Date.now()
  for (;;) {
    await host.settled(id)
    const s = await host.get(id)
    if (statuses.includes(s.status)) return s.status
    if (Date.now() - start > timeoutMs) throw new Error(`session ${id} stayed ${s.status}, wanted ${statuses.join('|')}`)
    await new Promise(r => setTimeout(r, 20))
  }
}

/** Every sequence is 1..n exactly once, in order. */
export function expectContiguous(events: SessionEvent[]): void {
  events.forEach((e, i) => {
    if (e.seq !== i + 1) throw new Error(`event ${i} has seq ${e.seq}; the log has a gap or a duplicate`)
  })
}

/** Plan step ids completed, in order, over all plan-updated events (a redone step appears twice). */
export function completions(events: SessionEvent[]): string[] {
  return events.flatMap(e => (e.type === 'plan-updated' && e.completed ? [`${e.executionId}:${e.completed}`] : []))
}

/**
 * The appendix profile with a gate: model call `at` (counted per execution run) waits until
 * `open()` is called or the call's abort signal fires, as a slow real model would. `reached`
 * resolves when a call waits at the gate. With `firstRunOnly`, only the first run of the first
 * execution gates (a run resumed after its host died goes through). `base`: the profile to gate
 * (default: the script-appendix profile as Node runs it).
 */
export function gatedAppendix(at: number, options: { firstRunOnly?: boolean; base?: AgentProfile } = {}) {
  const base = options.base ?? scriptAppendixProfile()
  let runs = 0
  let release!: () => void
  let reachedResolve!: () => void
  const gate = new Promise<void>(r => (release = r))
  const reached = new Promise<void>(r => (reachedResolve = r))
  const profile: AgentProfile = {
    async setup(e) {
      const s = await base.setup(e)
      let n = 0
      if (options.firstRunOnly && ++runs > 1) return s
      return {
        ...s,
        model: {
          ...s.model,
          doGenerate: async o => {
            if (++n === at) {
              reachedResolve()
              await new Promise<void>((resolve, reject) => {
                void gate.then(resolve)
                o.abortSignal?.addEventListener('abort', () => reject(o.abortSignal!.reason))
              })
            }
            return s.model.doGenerate(o)
          },
        },
      }
    },
  }
  return { profile, open: () => release(), reached }
}
