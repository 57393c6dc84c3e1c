import { restrict, RUN_ROOTS, type RunVfs } from 'agent-vfs'
import { createWorkspaceTools, type BashRunner, type ReadLedger, type RunJsRunner, type ToolLimits, type ToolSet } from 'agent-vfs/agent'
import type { SessionActor, SessionHost, SessionRecord } from 'agent-vfs/session'
import { wrapTools } from '../wrap-tools.js'

/** What a session's MCP tools are made of besides the workspace (see `SessionMcpOptions`). */
export interface SessionToolSlots {
  runJs?: (vfs: RunVfs, session: { id: string; owner: string }) => RunJsRunner
  bash?: (vfs: RunVfs, session: { id: string; owner: string }) => BashRunner
  limits?: Partial<ToolLimits>
}

/** The history tag of what an MCP client's tools write; bash's command lines carry their own. */
export const MCP_ACTOR: SessionActor = { kind: 'mcp' }
export const MCP_BASH_ACTOR: SessionActor = { kind: 'mcp', tool: 'bash' }

/**
 * The tools an MCP client of the session gets: the agent's own over the workspace the agent sees
 * (a closed session read-only as a whole), `run_js` and `bash` when the host gives them. Each call
 * that may write is followed by `host.recordUsage` (the owner's byte quota).
 */
export async function sessionTools(
  host: SessionHost,
  record: SessionRecord,
  reads: ReadLedger,
  slots: SessionToolSlots,
): Promise<{ tools: ToolSet; vfs: RunVfs }> {
  const { id, owner } = record
  const closed = record.status === 'closed'
  const view = async (actor: SessionActor) => {
    const base = await host.workspace(id, { actor })
    return closed ? (restrict(base, { readOnly: RUN_ROOTS.map(r => `/${r}`) }) as RunVfs) : base
  }
  const vfs = await view(MCP_ACTOR)
  const { runJs, bash } = slots
  const tools = createWorkspaceTools({
    vfs,
    reads,
    ...(slots.limits ? { limits: slots.limits } : {}),
    ...(runJs ? { runJs: (v: RunVfs) => runJs(v, { id, owner }) } : {}),
  })
  if (bash) {
    // Its own view, so a command line's one commit says it was bash over MCP in the history.
    const bashView = await view(MCP_BASH_ACTOR)
    tools.bash = createWorkspaceTools({ vfs: bashView, bash: v => bash(v, { id, owner }) }).bash!
  }
  return { tools: countWrites(tools, () => host.recordUsage(id)), vfs }
}

/** The tools, each call that may write followed by `after` (the owner's bytes), whether it succeeded or not. */
function countWrites(tools: ToolSet, after: () => Promise<void>): ToolSet {
  return wrapTools(tools, async (tool, input, call) => {
    try {
      return await call()
    } finally {
      if (tool.access(input).access !== 'read') await after().catch(() => undefined)
    }
  })
}
