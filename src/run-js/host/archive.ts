import { RUN_JS_ARCHIVE_DIR, RUN_JS_ARCHIVE_NAME } from '../../contract/layout.js'
import { normalizePath } from '../../contract/paths.js'
import type { RunVfs } from '../../vfs/run-view.js'
import type { LoadedModule } from './modules.js'
import type { Vfs } from '../../vfs/types.js'

/**
 * Every run's source is kept as `<dir>/run-NNN.js` (or `.ts`), and a result too large to return
 * inline as `<dir>/result-NNN.json` with the same number.
 *
 * Numbers are claimed, not computed: a run creates its script with `expectedVersion: 0` (create if
 * absent), and ECONFLICT means another writer took the number, so it tries the next. The first run
 * after opening a workspace scans the directory, so numbering survives reopening.
 */

/** Per workspace and directory: the next number to try (claims in one process never race). */
const counters = new WeakMap<Vfs, Map<string, { next: number; ready: Promise<void> }>>()

const NAME = /^(?:run|result)-(\d+)\.(?:js|ts|json)$/

/** Where archives go for a workspace, or undefined for none. */
export function archiveDirFor(vfs: Vfs | undefined, option: string | false | undefined): string | undefined {
  if (!vfs || option === false) return undefined
  if (option !== undefined) return normalizePath(option)
  const roots = (vfs as Partial<RunVfs>).roots
  if (roots && typeof (vfs as Partial<RunVfs>).resolve === 'function') {
    // A run scope has no `/`: keep archives in its own state, or the first writable root.
    if (roots.state?.writable) return RUN_JS_ARCHIVE_DIR
    const writable = Object.keys(roots).find(name => roots[name].writable)
    return writable === undefined ? undefined : `/${writable}/${RUN_JS_ARCHIVE_NAME}`
  }
  return `/${RUN_JS_ARCHIVE_NAME}`
}

export function pad(n: number): string {
  return String(n).padStart(3, '0')
}

/** Writes `source` as the next free `run-NNN.<ext>` and returns its number and path. */
export async function archiveScript(vfs: Vfs, dir: string, source: string, ext: 'js' | 'ts'): Promise<{ number: number; path: string }> {
  let byDir = counters.get(vfs)
  if (!byDir) counters.set(vfs, (byDir = new Map()))
  let counter = byDir.get(dir)
  if (!counter) {
    const c = { next: 1, ready: Promise.resolve() }
    c.ready = highestNumber(vfs, dir).then(n => {
      c.next = Math.max(c.next, n + 1)
    })
    // A failed scan is not kept: the next run scans again (this one fails with the error).
    const map = byDir
    c.ready.catch(() => {
      if (map.get(dir) === c) map.delete(dir)
    })
    byDir.set(dir, (counter = c))
  }
  await counter.ready
  for (let attempt = 0; attempt < 1000; attempt++) {
    const n = counter.next++
    const path = `${dir}/run-${pad(n)}.${ext}`
    const sibling = `${dir}/run-${pad(n)}.${ext === 'js' ? 'ts' : 'js'}`
    if (await vfs.exists(sibling)) continue
    try {
      await vfs.writeFile(path, source, { expectedVersion: 0 })
      return { number: n, path }
    } catch (error) {
      if (codeOf(error) !== 'ECONFLICT') throw error
      // Another process took it; skip past everything that exists now.
      counter.next = Math.max(counter.next, (await highestNumber(vfs, dir)) + 1)
    }
  }
  throw new Error(`run_js: could not claim a script number in ${dir}`)
}

/** Writes a large result next to its script. */
export async function archiveResult(vfs: Vfs, dir: string, number: number, json: string): Promise<string> {
  const path = `${dir}/result-${pad(number)}.json`
  await vfs.writeFile(path, json)
  return path
}

async function highestNumber(vfs: Vfs, dir: string): Promise<number> {
  let names: string[]
  try {
    names = await vfs.readdir(dir)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return 0
    throw error
  }
  let max = 0
  for (const name of names) {
    const m = NAME.exec(name)
    if (m) max = Math.max(max, Number(m[1]))
  }
  return max
}

/**
 * The workspace error code, read structurally: the Mastra entry is a separate bundle with its own
 * copy of VfsError, so `instanceof` cannot be trusted across entries.
 */
function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code
}

/**
 * The modules run `number` imported, as read (`run-NNN.modules.json`): with the script they are the
 * whole program, so an archived run can be read or replayed after its skills have changed.
 */
export async function archiveModules(vfs: Vfs, dir: string, number: number, modules: readonly LoadedModule[]): Promise<string> {
  const path = `${dir}/run-${pad(number)}.modules.json`
  await vfs.writeFile(path, JSON.stringify({ modules }, null, 1))
  return path
}
