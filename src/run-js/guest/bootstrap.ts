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

/**
 * Defines what the guest sees before any guest code runs: `vfs` (one function per row of the guest
 * API table), `console` and `external_*`, as frozen objects of host functions on non-writable,
 * non-configurable globals. No guest source is parsed for them; the handles are owned by `handles`.
 */
export function installGuestGlobals(ctx: QuickJSContext, handles: HandleScope, k: Intrinsics, globals: GuestGlobals): void {
  const defineGlobal = (name: string, value: QuickJSHandle) => {
    // Frozen, non-writable, non-configurable: a program cannot swap the API for the next caller.
    const frozen = k.call('Object.freeze', ctx.undefined, value)
    if (frozen.error) {
      frozen.error.dispose()
      throw new Error(`run_js could not freeze ${name}`)
    }
    frozen.value.dispose()
    k.defineValue(ctx.global, name, value, false, false)
  }
  if (globals.vfs) {
    const call = globals.vfs
    const vfs = handles.manage(ctx.newObject())
    for (const f of VFS_API) {
      const fn = k.newFunction(f.name, (...args) => call(f, args))
      k.setProp(vfs, f.name, fn)
      fn.dispose()
    }
    defineGlobal('vfs', vfs)
  }
  const console = handles.manage(ctx.newObject())
  for (const level of CONSOLE_METHODS) {
    const fn = k.newFunction(level, (...args) => globals.console(args))
    k.setProp(console, level, fn)
    fn.dispose()
  }
  defineGlobal('console', console)
  for (const tool of globals.tools) {
    const fn = handles.manage(k.newFunction(tool.globalName, input => tool.call(input)))
    defineGlobal(tool.globalName, fn)
  }
}
