import type { Plan } from '../api/types.js'
import { planProgress } from './timeline-model.js'

const STATUS_TEXT = { pending: 'pending', in_progress: 'in progress', completed: 'completed' } as const
const STATUS_MARK = { pending: '○', in_progress: '◐', completed: '●' } as const

/** The plan as a checklist with a progress bar over its steps; updated from `plan-updated` events. */
export function PlanChecklist({ plan }: { plan: Plan | undefined }) {
  const { done, total } = planProgress(plan)
  return (
    <section class="panel plan" aria-labelledby="plan-heading" data-testid="plan">
      <div class="panel-head">
        <h2 id="plan-heading">Plan</h2>
        {plan && <span class="hint">revision {plan.revision}</span>}
      </div>
      {!plan ? (
        <p class="hint">No plan yet: the agent makes one when it starts.</p>
      ) : (
        <>
          <div
            class="progress"
            role="progressbar"
            aria-label="Plan progress"
            aria-valuemin={0}
            aria-valuemax={total}
            aria-valuenow={done}
            aria-valuetext={`${done} of ${total} steps completed`}
            data-testid="plan-progress"
          >
            <div class="progress-bar" style={{ width: `${total ? (100 * done) / total : 0}%` }} />
          </div>
          <p class="hint" aria-hidden="true">
            {done} of {total} steps completed
          </p>
          <ol class="steps" aria-live="polite">
            {plan.steps.map(s => (
              <li key={s.id} class={`step ${s.status}`} data-testid="plan-step" data-step-id={s.id} data-status={s.status}>
                <span class="mark" aria-hidden="true">
                  {STATUS_MARK[s.status]}
                </span>
                <span class="step-title">{s.title}</span>
                <span class="visually-hidden">, {STATUS_TEXT[s.status]}</span>
                {s.notes && <span class="step-notes">{s.notes}</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  )
}
