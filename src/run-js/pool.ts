import type { QuickJsEngine, QuickJsModule } from './engine.js'
import { memoryPages } from './limits.js'

/** One QuickJS module instance and the capped memory it lives in. One run uses it at a time. */
export interface Instance {
  readonly module: QuickJsModule
  readonly memory: WebAssembly.Memory
}

/** How a run left its instance. */
export type InstanceHealth =
  /** Clean: the instance may serve the next run. */
  | 'healthy'
  /** Disposed cleanly, but it hit its memory cap: a new context there can corrupt memory (FIELD-NOTES). */
  | 'exhausted'
  /** The host saw an exception from inside wasm (stack overflow, abort): never touch it again. */
  | 'poisoned'

/**
 * Hands out module instances, one per concurrent run, each with its own capped memory so one run's
 * bomb cannot starve another. Instances that ran out of memory or threw into the host are dropped
 * (never disposed: disposing a poisoned runtime aborts inside wasm) and replaced on demand.
 */
export class InstancePool {
  private readonly idle: Instance[] = []

  constructor(
    private readonly engine: QuickJsEngine,
    private readonly memoryBytes: number,
    /** Idle instances kept for reuse. */
    private readonly maxIdle = 2,
  ) {}

  async acquire(): Promise<Instance> {
    const reused = this.idle.pop()
    if (reused) return reused
    const memory = new WebAssembly.Memory(memoryPages(this.memoryBytes))
    return { module: await this.engine.instantiate(memory), memory }
  }

  release(instance: Instance, health: InstanceHealth): void {
    // An instance that grew past half its cap keeps that memory forever; let it go so RSS can fall.
    const grown = instance.memory.buffer.byteLength > this.memoryBytes / 2
    if (health === 'healthy' && !grown && this.idle.length < this.maxIdle) this.idle.push(instance)
  }
}
