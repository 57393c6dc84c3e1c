import type { QuickJSContext, QuickJSHandle, Scope as HandleScope } from 'quickjs-emscripten-core'
import { CONSOLE_METHODS, VFS_API, type GuestFunction } from './guest-api.js'
import type { Intrinsics } from './intrinsics.js'

/** What a host function returns: a value, a guest exception to throw, or nothing. */
export type HostReturn = QuickJSHandle | { error: QuickJSHandle } | undefined

/** The host functions behind the guest's globals, one per kind of call. */
export interface GuestGlobals {
  /** `vfs.<f.name>(...)`; absent: the guest gets no `vfs`. */
  vfs?: (f: GuestFunction, args: QuickJSHandle[]) => HostReturn
  /** `console.<level>(...)`. */
  console: (args: QuickJSHandle[]) => HostReturn
  /** `external_<tool>(input)`, by global name. */
  tools: ReadonlyArray<{ globalName: string; call: (input: QuickJSHandle | undefined) => HostReturn }>
}

/** The names of `vfs`'s methods, in the order of the guest API table (made once, not per run). */
const VFS_METHODS = VFS_API.map(f => f.name)

/**
 * Defines what the guest sees before any guest code runs: `vfs` (one function per row of the guest
 * API table), `console` and `external_*`, as frozen objects of host functions on non-configurable
 * globals that cannot be assigned. No guest source is parsed for them; the handles are owned by `handles`.
 *
 * `vfs` and `console` are getters that make their object on first read: most of a small run's cost
 * was making fourteen host functions the program never called (and collecting them afterwards). The
 * object is made with the captured `Object.freeze`, so a guest that replaced anything first changes
 * nothing, and every later read returns the same object.
 */
export function installGuestGlobals(ctx: QuickJSContext, handles: HandleScope, k: Intrinsics, globals: GuestGlobals): void {
  const vfs = globals.vfs
  if (vfs) defineLazyGlobal(ctx, handles, k, 'vfs', VFS_METHODS, (i, args) => vfs(VFS_API[i], args))
  defineLazyGlobal(ctx, handles, k, 'console', CONSOLE_METHODS, (_, args) => globals.console(args))
  for (const tool of globals.tools) {
    const fn = handles.manage(k.newFunction(tool.globalName, input => tool.call(input)))
    freeze(ctx, k, tool.globalName, fn)
    k.defineValue(ctx.global, tool.globalName, fn, false, false)
  }
}

/** Frozen: a program cannot swap a function of the API for the code that runs after it (its modules). */
function freeze(ctx: QuickJSContext, k: Intrinsics, name: string, value: QuickJSHandle): void {
  const frozen = k.call('Object.freeze', ctx.undefined, value)
  if (frozen.error) {
    frozen.error.dispose()
    throw new Error(`run_js could not freeze ${name}`)
  }
  frozen.value.dispose()
}

/** The global `name`, a frozen object of host functions made on its first read (a module-level function: no closures per run but the getter). */
function defineLazyGlobal(
  ctx: QuickJSContext,
  handles: HandleScope,
  k: Intrinsics,
  name: string,
  methods: readonly string[],
  call: (method: number, args: QuickJSHandle[]) => HostReturn,
): void {
  let made: QuickJSHandle | undefined
  k.defineGetter(ctx.global, name, () => {
    if (!made) {
      const object = handles.manage(ctx.newObject())
      methods.forEach((method, i) => {
        const fn = k.newFunction(method, (...args) => call(i, args))
        // Defined, not set: guest code has run by now, and a setter it put on Object.prototype must not see this.
        k.defineValue(object, method, fn, false, true)
        fn.dispose()
      })
      freeze(ctx, k, name, object)
      made = object
    }
    return made.dup()
  })
}
