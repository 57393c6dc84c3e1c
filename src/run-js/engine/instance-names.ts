import type { ContextInside } from './inside.js'
import type { NameTable } from './names.js'

type Ptr = number

/** Words the block holds before the names: argument slots for calls, then two out-slots. */
export const ARGV_SLOTS = 8
export const BLOCK_WORDS = ARGV_SLOTS + 2

/**
 * The direct calls' names (direct.ts), kept by one module instance for every run on it: the table
 * copied into its memory once (after the call slots), and each name's key string made on first use.
 * A QuickJS string belongs to the runtime, not to a context, so one key serves every context the
 * runtime makes; nothing of a guest is in it. Freed by {@link dispose} before the runtime is
 * disposed; an instance dropped without dispose (poisoned) takes them with its memory.
 */
export class InstanceNames {
  /** Key strings (JSValue pointers) by name index, 0 until made. */
  readonly keys: Int32Array
  /** The call slots, then the names: see {@link BLOCK_WORDS}. */
  readonly block: Ptr

  constructor(
    readonly table: NameTable,
    private readonly inside: Pick<ContextInside, 'ffi' | 'rt'>,
  ) {
    const m = inside.ffi.module
    this.block = m._malloc(BLOCK_WORDS * 4 + table.bytes.length)
    if (!this.block) throw new Error('run_js: QuickJS could not allocate the names of the guest API')
    m.HEAPU8.set(table.bytes, this.block + BLOCK_WORDS * 4)
    this.keys = new Int32Array(table.size)
  }

  /** Whether direct calls of `inside` (same module, same runtime) may use these names. */
  serves(table: NameTable, inside: Pick<ContextInside, 'ffi' | 'rt'>): boolean {
    return table === this.table && inside.ffi.module === this.inside.ffi.module && inside.rt.value === this.inside.rt.value
  }

  /** Frees the keys and the block; the runtime must still be alive. */
  dispose(): void {
    const { ffi, rt } = this.inside
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i]) ffi.QTS_FreeValuePointerRuntime(rt.value, this.keys[i])
    this.keys.fill(0)
    ffi.module._free(this.block)
  }
}
