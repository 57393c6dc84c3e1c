import type { QuickJSContext, QuickJSHandle, Scope as HandleScope } from 'quickjs-emscripten-core'
import type { HostReturn } from './bootstrap.js'

/**
 * Time and randomness of a journaled (suspendable) run, so that replaying the program gives the
 * same values: `Date.now()` and `new Date()` read the host's `now` (journaled by the dispatch), and
 * `Math.random` is a seeded generator (mulberry32; the seed is in the journal). The original `Date`
 * stays reachable only for dates built from arguments (`new Date(0)`, `Date.UTC`, `Date.parse`),
 * which are deterministic anyway. QuickJS exposes no other source (no `crypto`, no `performance`).
 */
const SOURCE = `(function(now,seed){'use strict';
const D=Date,P=D.prototype;
function Date2(...a){if(new.target===undefined)return new D(now()).toString();return a.length===0?new D(now()):new D(...a)}
Object.defineProperty(Date2,'prototype',{value:P});
Object.defineProperty(P,'constructor',{value:Date2,writable:true,configurable:true});
Date2.now=function now_(){return now()};Date2.parse=D.parse;Date2.UTC=D.UTC;
Object.defineProperty(globalThis,'Date',{value:Date2,writable:true,configurable:true});
let s=seed|0;
Object.defineProperty(Math,'random',{value:function random(){s=s+0x6D2B79F5|0;let t=Math.imul(s^s>>>15,1|s);t=t+Math.imul(t^t>>>7,61|t)^t;return((t^t>>>14)>>>0)/4294967296},writable:true,configurable:true});
})`

/** Installs the journaled clock and the seeded `Math.random`. Runs before any guest code. */
export function installDeterminism(ctx: QuickJSContext, handles: HandleScope, seed: number, now: () => HostReturn): void {
  const factory = ctx.evalCode(SOURCE, 'determinism.js', { type: 'global' })
  if (factory.error) {
    factory.error.dispose()
    throw new Error('run_js could not install the journaled clock')
  }
  const f = handles.manage(factory.value)
  const nowFn = handles.manage(ctx.newFunction('now', () => now() as QuickJSHandle | undefined))
  const seedHandle = handles.manage(ctx.newNumber(seed | 0))
  const r = ctx.callFunction(f, ctx.undefined, nowFn, seedHandle)
  if (r.error) {
    r.error.dispose()
    throw new Error('run_js could not install the journaled clock')
  }
  r.value.dispose()
}
