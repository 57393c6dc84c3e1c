import { VfsError } from '../../contract/errors.js'
import { utf8Length } from '../guest/host-json.js'
import type { ResolvedLimits } from '../engine/limits.js'

/**
 * What one run may write through `vfs.write`: bytes and writes (each write creates or replaces a
 * file). Without it a program that loops over `vfs.write` for 1.5 s grew the host's memory by
 * ~235 MB (every write lives in memory until committed, and history keeps what it replaced). The
 * charge is taken before the write starts, so a refused write changes nothing.
 */
export class WriteBudget {
  private bytes = 0
  private files = 0

  constructor(private readonly limits: Pick<ResolvedLimits, 'writeBytes' | 'writeFiles'>) {}

  /** Counts one write of `data` to `path`, or throws `EQUOTA` naming the limit to raise. */
  charge(path: string, data: string | Uint8Array): void {
    const size = data instanceof Uint8Array ? data.byteLength : utf8Length(String(data))
    const { writeBytes, writeFiles } = this.limits
    if (this.files + 1 > writeFiles)
      throw new VfsError('EQUOTA', path, `this run already wrote ${this.files} files, at most ${writeFiles} (limits.writeFiles)`, {
        hint: 'write fewer, larger files (one JSON or JSONL file instead of one per item), or raise limits.writeFiles',
      })
    if (this.bytes + size > writeBytes)
      throw new VfsError(
        'EQUOTA',
        path,
        `this write of ${size} bytes would take the run past its write budget (${this.bytes} of ${writeBytes} bytes written, limits.writeBytes)`,
        { hint: 'write less (summaries instead of copies), or raise limits.writeBytes' },
      )
    this.files++
    this.bytes += size
  }
}
