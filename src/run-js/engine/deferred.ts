import type { QuickJSHandle } from 'quickjs-emscripten-core'

// What the direct calls (direct.ts) hand out: call results, host functions, guest promises.

/** A call's outcome, as `ctx.callFunction` gives it (only `value` and `error` are read). */
export type CallResult = { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle; value?: undefined }

/** The host side of a guest function, as `ctx.newFunction` takes it. */
export type HostFunction = (this: QuickJSHandle, ...args: QuickJSHandle[]) => QuickJSHandle | { error: QuickJSHandle } | undefined | void

/** A guest promise the host settles: {@link Deferred} or quickjs-emscripten's `QuickJSDeferredPromise`. */
export interface GuestDeferred {
  readonly handle: QuickJSHandle
  readonly alive: boolean
  resolve(value: QuickJSHandle): void
  reject(value: QuickJSHandle): void
  dispose(): void
}

/**
 * A guest promise and its resolvers (as `ctx.newPromise` gives, without a host promise per call). `resolve`
 * and `reject` throw if QuickJS fails to run them (the run was interrupted): the caller treats that as a host error.
 */
export class Deferred implements GuestDeferred {
  constructor(
    /** Calls a resolver with one argument (the direct calls' `call`, `this` undefined). */
    private readonly call: (fn: QuickJSHandle, value: QuickJSHandle) => CallResult,
    readonly handle: QuickJSHandle,
    private readonly resolveFn: QuickJSHandle,
    private readonly rejectFn: QuickJSHandle,
  ) {}

  get alive(): boolean {
    return this.handle.alive || this.resolveFn.alive || this.rejectFn.alive
  }

  resolve(value: QuickJSHandle): void {
    this.settle(this.resolveFn, value)
  }

  reject(value: QuickJSHandle): void {
    this.settle(this.rejectFn, value)
  }

  private settle(fn: QuickJSHandle, value: QuickJSHandle): void {
    if (!fn.alive) return
    const r = this.call(fn, value)
    if (r.error) {
      r.error.dispose()
      throw new Error('run_js: QuickJS could not settle a guest promise')
    }
    r.value.dispose()
    this.disposeResolvers()
  }

  dispose(): void {
    if (this.handle.alive) this.handle.dispose()
    this.disposeResolvers()
  }

  private disposeResolvers(): void {
    if (this.resolveFn.alive) this.resolveFn.dispose()
    if (this.rejectFn.alive) this.rejectFn.dispose()
  }
}
