import type { Vfs } from '../../src/index.js'

/** Thrown by every workspace call once the simulated process has died. */
export class Killed extends Error {
  override readonly name = 'Killed'
}

/** A kill condition true at the n-th call of `method` whose first argument is `path` (or matches it). */
export function nth(method: string, path: string | RegExp, n: number): (method: string, args: unknown[]) => boolean {
  let seen = 0
  return (m: string, args: unknown[]) =>
    m === method && (typeof path === 'string' ? args[0] === path : path.test(String(args[0]))) && ++seen === n
}

/**
 * Wraps a workspace so that the process "dies" at the first call for which `when(method, args)` is
 * true: that call and every later one throw, so nothing after the kill point reaches the store.
 *
 * Calls issued before the kill point (e.g. the plan write in the same tick as a killed checkpoint
 * write) still reach the store and land or fail there. The Killed errors are delivered only once
 * those calls have settled, so the caller (the test) sees the run die only when the store is in
 * its final state, as after a real crash: otherwise a reopened "new process" could load its
 * snapshot while the dead one's write is still committing, and then conflict with that late write.
 */
export function killable<T extends Vfs>(vfs: T, when: (method: string, args: unknown[]) => boolean): T & { readonly killed: boolean } {
  let dead = false
  const inFlight = new Set<Promise<unknown>>()
  return new Proxy(vfs, {
    get(target, prop, receiver) {
      if (prop === 'killed') return dead
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (!dead && when(String(prop), args)) dead = true
        if (dead) {
          const killed = new Killed(`killed at ${String(prop)}(${JSON.stringify(args[0])})`)
          return Promise.allSettled([...inFlight]).then(() => Promise.reject(killed))
        }
        const result = value.apply(target, args)
        if (result instanceof Promise) {
          inFlight.add(result)
          void result.then(
            () => inFlight.delete(result),
            () => inFlight.delete(result),
          )
        }
        return result
      }
    },
  }) as T & { readonly killed: boolean }
}
