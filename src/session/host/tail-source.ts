import type { HostContext } from '../context.js'
import type { TailSource } from '../records/log-tail.js'
import { scopeNames } from '../storage.js'

/**
 * Where a session's tail reads on this host: the session's log, woken by the host's signals (with
 * their news: a commit of this process carries its lines) and
 * by the store's own notifications (IndexedDB across tabs): the segments around the tail, and the
 * meta scope, whose log hint moves when a new segment starts (then the watch follows).
 */
export function sessionTailSource(ctx: HostContext, sessionId: string): TailSource {
  const { store, namespace } = ctx
  return {
    read: (after, limit) => ctx.log(sessionId).readLines(after, limit),
    last: () => ctx.log(sessionId).lastSeq(),
    watch(wake) {
      const off = ctx.signals.subscribe(sessionId, wake)
      if (!store.watch) return off
      const segmentWatches = new Map<number, () => void>()
      let closed = false
      const follow = () => {
        void ctx
          .log(sessionId)
          .hint()
          .then(
            h => {
              if (closed) return
              for (const [s, unwatch] of segmentWatches) {
                if (s < h.segment) {
                  unwatch()
                  segmentWatches.delete(s)
                }
              }
              for (let s = h.segment; s <= h.segment + 1; s++)
                if (!segmentWatches.has(s))
                  segmentWatches.set(
                    s,
                    store.watch!(namespace, scopeNames.events(sessionId, s), () => wake()),
                  )
            },
            () => undefined,
          )
      }
      const offMeta = store.watch(namespace, scopeNames.meta(sessionId), () => {
        follow()
        wake()
      })
      follow()
      return () => {
        closed = true
        off()
        offMeta()
        for (const unwatch of segmentWatches.values()) unwatch()
      }
    },
  }
}
