import { isVfsError, isWithin, type Vfs } from 'agent-vfs'
import { textReaderOf } from 'agent-vfs/internal'
import { childPath, joined, type Staging } from './staging.js'

/** One change to the workspace view: what apply issues. */
type Op = { op: 'remove'; path: string; dir: boolean } | { op: 'mkdir'; path: string } | { op: 'write'; path: string; data: Uint8Array }

/** What a path held before the command's changes landed, to put it back (null: nothing). */
type Prior = { path: string; data: Uint8Array | null; dir: boolean }

// As the workspace decodes (its reader keeps a leading U+FEFF): otherwise a file that starts with a
// byte-order mark would read back different from what was written, and count as refused.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/**
 * Lands a command line's staged changes as ONE group commit, or nothing. The workspace commits
 * everything issued in one synchronous turn together (its commit queue starts a batch in a
 * microtask), so every change is issued in one turn, removals first, then directories, then files.
 * A change the workspace refuses there (a quota) is seen at once through its synchronous reader,
 * and the changes issued before it are put back in the same turn, before the batch forms: the
 * batch then holds what the paths held already, and nothing of the command. A failure of the
 * batch itself (the store) rolls it back whole, as every batch.
 */
export async function applyStaged(staging: Staging): Promise<void> {
  const view = staging.base
  const ops = await plan(staging)
  if (ops.length === 0) return
  const read = textReaderOf(view)
  const priors = read ? await priorsOf(view, ops) : []
  const issued: Array<Promise<void>> = []
  let failure: unknown
  const keep = (p: Promise<void>) => issued.push(p.catch((e: unknown) => void (failure ??= e)))
  let refused = -1
  // ---- one synchronous turn from here to the await ----
  for (let i = 0; i < ops.length; i++) {
    keep(issue(view, ops[i]))
    if (read && !took(read, ops[i])) {
      refused = i
      break
    }
  }
  if (refused >= 0) putBack(view, priors, ops.slice(0, refused), keep)
  await Promise.all(issued)
  if (refused >= 0 || failure !== undefined) throw failure ?? new Error('the workspace refused a change')
}

/** The changes that turn the view into what the command sees, in the order they are issued. */
async function plan(staging: Staging): Promise<Op[]> {
  const view = staging.base
  const removals: Op[] = []
  const dirs: Op[] = []
  const files: Op[] = []
  const replacing: Op[] = []
  for (const [path, staged] of [...staging.changes].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const held = await kindOf(view, path)
    if (staged.kind === 'gone') {
      if (held) removals.push({ op: 'remove', path, dir: held === 'dir' })
    } else if (staged.kind === 'dir') {
      if (held === 'file') removals.push({ op: 'remove', path, dir: false })
      if (held === 'dir') {
        // A directory the command removed and made again: what the workspace held below it goes.
        for (const name of await view.readdir(path))
          if (!staging.changes.has(childPath(path, name)))
            removals.push({ op: 'remove', path: childPath(path, name), dir: (await kindOf(view, childPath(path, name))) === 'dir' })
      } else dirs.push({ op: 'mkdir', path })
    } else {
      if (held === 'dir') removals.push({ op: 'remove', path, dir: true })
      ;(held === 'file' ? replacing : files).push({ op: 'write', path, data: joined(staged) })
    }
  }
  const topmost = removals.filter(r => !removals.some(o => o !== r && o.path !== r.path && isWithin(r.path, o.path)))
  // New entries before replaced ones: what a quota refuses is usually new, and taking back a new
  // entry leaves nothing in the batch, where putting back a replaced file is a (same-content) write.
  return [...topmost, ...dirs, ...files, ...replacing]
}

async function kindOf(view: Vfs, path: string): Promise<'file' | 'dir' | null> {
  try {
    return (await view.stat(path)).type === 'directory' ? 'dir' : 'file'
  } catch (error) {
    if (isVfsError(error, 'ENOENT') || isVfsError(error, 'ENOTDIR')) return null
    throw error
  }
}

/** What every path the ops change holds now (a removed directory: all of it), parents first. */
async function priorsOf(view: Vfs, ops: Op[]): Promise<Prior[]> {
  const out: Prior[] = []
  for (const op of ops) {
    const kind = await kindOf(view, op.path)
    if (kind === 'file') out.push({ path: op.path, data: await view.readFile(op.path), dir: false })
    else if (kind === null) out.push({ path: op.path, data: null, dir: false })
    else if (op.op === 'remove') {
      out.push({ path: op.path, data: null, dir: true })
      for (const rel of await view.readdir(op.path, { recursive: true })) {
        const path = childPath(op.path, rel)
        const dir = (await kindOf(view, path)) === 'dir'
        out.push({ path, data: dir ? null : await view.readFile(path), dir })
      }
    }
  }
  return out
}

function issue(view: Vfs, op: Op): Promise<void> {
  if (op.op === 'write') return view.writeFile(op.path, op.data)
  if (op.op === 'mkdir') return view.mkdir(op.path)
  return op.dir ? view.rmdir(op.path, { recursive: true }) : view.deleteFile(op.path)
}

/** Whether the workspace now shows the op done (its synchronous reader answers from memory). */
function took(read: (path: string) => string | undefined, op: Op): boolean {
  let text: string | undefined
  try {
    text = read(op.path)
  } catch (error) {
    if (op.op === 'remove') return isVfsError(error, 'ENOENT')
    if (op.op === 'mkdir') return isVfsError(error, 'EISDIR')
    return false
  }
  if (text === undefined) return true // the view cannot tell now: the batch decides
  return op.op === 'write' && text === decoder.decode(op.data)
}

/** Puts back, in the same turn, what the applied ops changed. */
function putBack(view: Vfs, priors: Prior[], applied: Op[], keep: (p: Promise<void>) => void): void {
  // Undo what the command made (deepest first), then restore what was there (parents first).
  for (const op of [...applied].reverse()) {
    if (op.op === 'remove') continue
    const prior = priors.find(p => p.path === op.path)
    if (!prior || prior.data !== null || prior.dir) continue
    keep(op.op === 'mkdir' ? view.rmdir(op.path, { recursive: true }) : view.deleteFile(op.path))
  }
  const touched = (path: string) => applied.some(op => isWithin(path, op.path))
  for (const prior of priors) {
    if (!touched(prior.path)) continue
    if (prior.dir) keep(view.mkdir(prior.path))
    else if (prior.data !== null) keep(view.writeFile(prior.path, prior.data))
  }
}
