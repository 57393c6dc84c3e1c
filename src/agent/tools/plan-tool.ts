import { planStepsSchema, type PlanController } from '../state/plan.js'
import { defineTool } from './tool.js'

/** `update_plan`: replaces the plan with a new revision, enforcing the plan rules. Each success is a checkpoint. */
export function updatePlanTool(plan: PlanController) {
  return defineTool({
    description:
      'Create or update the plan (/state/plan.json). Send every step with its status (pending, in_progress, completed). ' +
      'Rules: a new step cannot start completed; complete at most one step per update, and only after doing its work ' +
      'with another tool; completed steps stay completed. Each accepted update is a checkpoint: your work is saved and ' +
      'you continue from the plan.',
    inputSchema: planStepsSchema,
    kind: 'plan',
    effect: 'checkpoints',
    access: () => ({ access: 'write', paths: [] }),
    async execute({ steps }) {
      const { plan: p, completed } = await plan.update(steps)
      const next = p.steps.find(s => s.status !== 'completed')
      return {
        revision: p.revision,
        ...(completed ? { completed: completed.id } : {}),
        remaining: p.steps.filter(s => s.status !== 'completed').length,
        next: next ? `${next.id}: ${next.title}` : 'every step is completed: submit the result (submit_result) or answer.',
      }
    },
  })
}
