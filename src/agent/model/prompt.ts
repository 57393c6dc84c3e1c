import type { Plan } from '../state/plan.js'

/** Why a window was opened. */
export type WindowReason = 'start' | 'checkpoint' | 'step-limit' | 'no-tool-call' | 'resume' | 'follow-up-window'

/** An earlier execution of the same session, as the next one is told about it. */
export interface EarlierExecution {
  id: string
  instructions: string
  status: string
  /** Plan step titles, with their status. */
  steps?: string[]
  summary?: string
}

/**
 * The state a window opens with. runTask writes it into the opening message as JSON between
 * `<state>` tags; {@link readWindowState} reads it back (the scripted model does).
 */
export interface WindowState {
  executionId: string
  window: number
  reason: WindowReason
  plan?: Plan
  /** The first step not yet completed. */
  nextStep?: { id: string; title: string; status: string }
  /** Problems of the last rejected result, still to fix. */
  rejected?: string[]
  /** What the result contract says, if the task has one. */
  contract?: { description?: string; resultPath?: string }
  /** Files under the writable roots, with sizes. */
  files: Array<{ path: string; size: number }>
  /** Files under read-only roots, counted per root. */
  inputs: Record<string, number>
  earlier?: EarlierExecution[]
  /** Why the previous window ended, when that matters for this one. */
  note?: string
  /** Messages the user sent to this execution while it ran, oldest first: they take precedence over the task where they differ. */
  messages?: string[]
}

/** The system prompt of every window. */
export function systemPrompt(hasContract: boolean): string {
  return [
    'You are an agent working in a persistent workspace. Inputs are under /context (and /skills), read-only.',
    'Write working files under /work and deliverables under /outputs. /state is kept by the runner.',
    'Work in steps: keep a plan with update_plan (ids, titles, statuses). Each accepted plan update is a checkpoint:',
    'the conversation then restarts from the plan and the files, so put anything you must remember into files or step notes.',
    'Complete one step per update, after doing its work with tools. Every tool error says what to do next: follow it.',
    hasContract
      ? 'This task has a result contract: make the plan first; when every step is completed, call submit_result.'
      : 'When every step is completed, call submit_result with the result (or answer in text if there is nothing to submit).',
  ].join('\n')
}

/** The opening user message of a window: the task, then the state block. */
export function renderOpening(instructions: string, state: WindowState): string {
  const lines = [`Task:\n${instructions}`, '']
  if (state.earlier?.length)
    lines.push(`Earlier executions in this session: ${state.earlier.length} (see state.earlier); their files are still here.`)
  if (state.plan) {
    lines.push(`Plan revision ${state.plan.revision}:`)
    for (const s of state.plan.steps)
      lines.push(
        `- [${s.status === 'completed' ? 'x' : s.status === 'in_progress' ? '~' : ' '}] ${s.id}: ${s.title}${s.notes ? ` (notes: ${s.notes})` : ''}`,
      )
    lines.push(state.nextStep ? `Continue with step "${state.nextStep.id}".` : 'Every step is completed.')
  } else {
    lines.push('There is no plan yet: start by making one with update_plan.')
  }
  if (state.rejected) lines.push(`Your last result was rejected. Problems:\n- ${state.rejected.join('\n- ')}`)
  if (state.note) lines.push(state.note)
  if (state.messages?.length)
    lines.push(
      `Messages from the user during this execution (newest last; follow them where they change the task):\n- ${state.messages.join('\n- ')}`,
    )
  lines.push('', `<state>${JSON.stringify(state)}</state>`)
  return lines.join('\n')
}

/** Reads the `<state>` block of an opening message. */
export function readWindowState(text: string): WindowState | undefined {
  const m = /<state>([\s\S]*)<\/state>/.exec(text)
  if (!m) return undefined
  try {
    return JSON.parse(m[1]) as WindowState
  } catch {
    return undefined
  }
}
