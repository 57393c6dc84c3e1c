import { STATE_ROOT, type Vfs } from 'agent-vfs'
import { mount } from 'agent-vfs/internal'

/**
 * Where an execution's writes go: `direct`, into the workspace (the default); `propose`, into a
 * branch of it that a person reviews as a diff and approves (one group commit) or rejects.
 */
export type WritesMode = 'direct' | 'propose'

/**
 * The workspace an execution in `propose` mode runs on: its files are the branch's (so it reads its
 * own writes and the workspace as it was when the branch was made), while `/state`, the runtime's
 * record of the execution (plan, checkpoints, pending actions), stays on the workspace itself,
 * where the host reads it. Put a run view over it as over any workspace.
 */
export function proposalView(workspace: Vfs, branch: Vfs): Vfs {
  return mount(branch, { [STATE_ROOT]: workspace })
}
