import type { QuickJSRuntime } from 'quickjs-emscripten-core'
import type { QuickJsEngine, QuickJsModule } from './engine.js'
import type { InstanceNames } from './instance-names.js'
import { memoryPages } from './limits.js'

/**
 * One QuickJS module instance, the capped memory it lives in, and its runtime. One run uses it at a
 * time, each in a fresh context: contexts share no JavaScript state. The runtime is kept because a
 * fresh one re-creates every atom the guest API names, which costs more than the rest of a run.
 */
export interface Instance {
  readonly module: QuickJsModule
  readonly memory: WebAssembly.Memory
  runtime?: QuickJSRuntime
  /** The direct calls' names, made by the first run and kept for the next (freed before the runtime). */
  names?: InstanceNames
}

/** How a run left its instance. */
export type InstanceHealth =
  /** Clean: the instance may serve the next run. */
  | 'healthy'
  /**
   * Disposed cleanly, but not reused: it hit its memory cap (a new context there can corrupt memory,
   * FIELD-NOTES), used more than half of it (those pages stay resident), or still holds jobs of the
   * run (which must never run in the next one).
   */
  | 'exhausted'
  /** The host saw an exception from inside wasm, or the runtime holds leaked objects: never touch it again. */
  | 'poisoned'

/**
 * Hands out module instances, one per concurrent run, each with its own capped memory so one run's
 * bomb cannot starve another. Instances that ran out of memory are disposed and replaced; instances
 * that threw into the host are dropped without dispose (disposing a poisoned runtime aborts inside
 * wasm) and left to the garbage collector, memory and all.
 */
export class InstancePool {
  private readonly idle: Instance[] = []

  constructor(
    private readonly engine: QuickJsEngine,
    private readonly memoryBytes: number,
    /** Idle instances kept for reuse. */
    private readonly maxIdle = 2,
  ) {}

  /** An idle instance at once (no promise: this is on every run's path), or a new one. */
  acquire(): Instance | Promise<Instance> {
    return this.idle.pop() ?? this.create()
  }

  private async create(): Promise<Instance> {
    const memory = new WebAssembly.Memory(memoryPages(this.memoryBytes))
    return { module: await this.engine.instantiate(memory), memory }
  }

  release(instance: Instance, health: InstanceHealth): void {
    if (health === 'healthy' && this.idle.length < this.maxIdle) {
      this.idle.push(instance)
      return
    }
    if (health !== 'poisoned') disposeRuntime(instance)
  }

  /** Disposes the idle instances' runtimes. Runs in progress keep theirs until they end. */
  close(): void {
    for (const instance of this.idle.splice(0)) disposeRuntime(instance)
  }
}

function disposeRuntime(instance: Instance): void {
  try {
    if (instance.runtime?.alive) {
      instance.names?.dispose()
      instance.names = undefined
      instance.runtime.dispose()
    }
  } catch {
    // Leaked objects: the instance is dropped either way.
  }
  instance.runtime = undefined
}

/** A view of each memory, made once: this runs after every run, and the memory never grows. */
const views = new WeakMap<WebAssembly.Memory, Uint32Array>()

/**
 * Roughly how far up `memory` has been used, looking only above `from`: the top of the highest
 * 64 KiB page whose first word is non-zero, or 0 if none above `from` has one.
 *
 * The memory never grows (it is created at its maximum, see limits.ts), so its size says nothing
 * about use. Sampling misses pages that only ever held zeros (a zero-filled typed array), which is
 * why this only decides whether to keep an instance, never whether a limit held. One word per page:
 * every sample touches another OS page (a TLB miss each), and this runs after every run; eight per
 * page cost ~100 µs a run, a tenth of a whole small run. The heap grows upwards without holes, so
 * a used page's first word is almost never zero (a chunk header or old data).
 */
export function usedBytes(memory: WebAssembly.Memory, from: number): number {
  let words = views.get(memory)
  if (words?.buffer !== memory.buffer) views.set(memory, (words = new Uint32Array(memory.buffer)))
  const PAGE_WORDS = 65536 / 4
  const lowest = Math.floor(from / 65536)
  for (let page = words.length / PAGE_WORDS - 1; page >= lowest; page--) if (words[page * PAGE_WORDS] !== 0) return (page + 1) * 65536
  return 0
}
