import { VfsError } from '../contract/errors.js'
import { actorJson } from './file-change.js'
import type { ChangeActor } from './history-types.js'
import { VfsLayer } from './layer.js'
import type { Vfs } from './types.js'
import { StoreVfs } from './vfs.js'
import { BranchVfs } from './branch-vfs.js'

/**
 * A view of a workspace whose writes carry `actor` into history and into change notices (e.g.
 * `withActor(vfs, { kind: 'execution', id })`, then `scopeRun` over it). It goes directly over the
 * workspace `openVfs` returned or over a branch: the tag is handed to the workspace while the write
 * is issued, which happens synchronously in the call, so no other write can pick it up.
 */
export function withActor(vfs: Vfs, actor: ChangeActor): Vfs {
  if (!(vfs instanceof StoreVfs) && !(vfs instanceof BranchVfs))
    throw new VfsError('EINVAL', undefined, 'withActor goes directly over the workspace openVfs() returned, or over a branch')
  return new ActorLayer(vfs, actorJson(actor))
}

class ActorLayer extends VfsLayer {
  constructor(
    base: Vfs,
    private readonly actor: string,
  ) {
    super(base)
  }

  protected override below<T>(_path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    const base = this.base
    if (base instanceof BranchVfs) return base.open().then(inner => tagged(inner, this.actor, fn))
    return tagged(base as StoreVfs, this.actor, fn)
  }
}

function tagged<T>(vfs: StoreVfs, actor: string, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
  const before = vfs.writingAs
  vfs.writingAs = actor
  try {
    return fn(vfs)
  } finally {
    vfs.writingAs = before
  }
}
