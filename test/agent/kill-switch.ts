import type { Vfs } from '../../src/index.js'

/** Thrown by every workspace call once the simulated process has died. */
export class Killed extends Error {
  override readonly name = 'Killed'
}

/** A kill condition true at the n-th call of `method` whose first argument is `path` (or matches it). */
export function nth(method: string, path: string | RegExp, n: number): (method: string, args: unknown[]) => boolean {
  let seen = 0
  return (m: string, args: unknown[]) => m === method && (typeof path === 'string' ? args[0] === path : path.test(String(args[0]))) && ++seen === n
}

/**
 * Wraps a workspace so that the process "dies" at the first call for which `when(method, args)` is
 * true: that call and every later one throw, so nothing after the kill point reaches the store.
 */
export function killable<T extends Vfs>(vfs: T, when: (method: string, args: unknown[]) => boolean): T & { readonly killed: boolean } {
  let dead = false
  return new Proxy(vfs, {
    get(target, prop, receiver) {
      if (prop === 'killed') return dead
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (!dead && when(String(prop), args)) dead = true
        if (dead) return Promise.reject(new Killed(`killed at ${String(prop)}(${JSON.stringify(args[0])})`))
        return value.apply(target, args)
      }
    },
  }) as T & { readonly killed: boolean }
}
