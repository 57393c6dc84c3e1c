import { READ_ONLY_ROOTS, STATE_ROOT, WRITABLE_ROOTS } from 'agent-vfs'
import { listExecutionIds, readExecution } from '../state/execution-records.js'
import { EXECUTIONS_DIR } from '../state/paths.js'
import type { Plan } from '../state/plan.js'
import { renderOpening, systemPrompt, type EarlierExecution, type WindowReason, type WindowState } from '../model/prompt.js'
import type { ExecutionContext } from './execution-context.js'

const MAX_FILES = 200
/** The roots whose files a window opening lists: the agent's own work. */
const WORKING_ROOTS = WRITABLE_ROOTS.filter(r => `/${r}` !== STATE_ROOT).map(r => `/${r}`)

/** Builds a window's system prompt and opening message from the plan, the files and the session's history. */
export async function windowOpening(
  ctx: ExecutionContext,
  reason: WindowReason,
  note?: string,
): Promise<{ system: string; user: string; state: WindowState }> {
  const { vfs, recorder, plan, contract } = ctx
  const r = recorder.record
  const files: WindowState['files'] = []
  for (const root of WORKING_ROOTS) {
    for (const path of await vfs.glob(`${root}/**`)) {
      if (files.length >= MAX_FILES) break
      files.push({ path, size: (await vfs.stat(path)).size })
    }
  }
  const inputs: Record<string, number> = {}
  for (const root of READ_ONLY_ROOTS) inputs[root] = (await vfs.glob(`/${root}/**`)).length
  const current = plan.plan
  const next = current?.steps.find(s => s.status !== 'completed')
  const state: WindowState = {
    executionId: r.id,
    window: r.windows,
    reason,
    ...(current ? { plan: current } : {}),
    ...(next ? { nextStep: { id: next.id, title: next.title, status: next.status } } : {}),
    ...(r.submission.rejected ? { rejected: r.submission.rejected.problems } : {}),
    ...(contract
      ? {
          contract: {
            ...(contract.description ? { description: contract.description } : {}),
            ...(contract.resultPath ? { resultPath: contract.resultPath } : {}),
          },
        }
      : {}),
    files,
    inputs,
    ...(note ? { note } : {}),
  }
  const messages = ctx.steering ? await ctx.steering() : []
  if (messages.length > 0) state.messages = messages
  const earlier = await earlierExecutions(ctx, r.id)
  if (earlier.length > 0) state.earlier = earlier
  return { system: systemPrompt(r.hasContract), user: renderOpening(r.instructions, state), state }
}

async function earlierExecutions(ctx: ExecutionContext, currentId: string): Promise<EarlierExecution[]> {
  const out: EarlierExecution[] = []
  for (const id of await listExecutionIds(ctx.vfs)) {
    if (id === currentId) continue
    const rec = await readExecution(ctx.vfs, id)
    if (!rec) continue
    let steps: string[] | undefined
    try {
      const p = JSON.parse(await ctx.vfs.readFile(`${EXECUTIONS_DIR}/${id}/plan.json`, 'utf8')) as Plan
      steps = p.steps.map(s => `[${s.status}] ${s.id}: ${s.title}`)
    } catch {
      steps = undefined
    }
    out.push({
      id,
      instructions: rec.instructions,
      status: rec.status,
      ...(steps ? { steps } : {}),
      ...(rec.summary ? { summary: rec.summary } : {}),
    })
  }
  return out
}
