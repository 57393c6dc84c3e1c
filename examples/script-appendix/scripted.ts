import type { ScriptedCall, ScriptedTurn, ScriptedView } from 'agent-vfs/agent'
import { APPENDIX, BUILD, INDEX_BY_LOCATION, SURVEY, TITLE_PATH, extract } from './programs.js'

/** A step of the scripted model's plan and the tool calls that do it, in order. */
interface StepScript {
  id: string
  title: string
  calls: (view: ScriptedView) => ScriptedCall[]
}

const runJs = (code: string, description: string): ScriptedCall => ({ toolName: 'run_js', input: { code, description } })

/** Options of {@link appendixModel}. */
export interface AppendixModelOptions {
  /** Make the first extraction skip the last episode, as a model's off-by-one would. Default true. */
  gap?: boolean
}

/**
 * The scripted model of the example: plans four steps, does each with a run_js program, submits;
 * when the contract rejects the result it adds a correction step that extracts exactly the episodes
 * the problems name, rebuilds the outputs and resubmits. It decides only from the window's state and
 * the tool results it gets.
 */
export function appendixModel(options: AppendixModelOptions = {}): (view: ScriptedView) => ScriptedTurn {
  const gap = options.gap ?? true
  const steps: StepScript[] = [
    { id: 'survey', title: 'Read characters.md and list the episodes', calls: () => [runJs(SURVEY, 'survey the input')] },
    // The off-by-one: `files.slice(0, -1)` leaves out the last episode.
    { id: 'extract', title: 'Extract scenes, cues and props from every episode', calls: () => [runJs(extract(gap ? 'files.slice(0, -1)' : 'files'), 'extract episodes')] },
    { id: 'assets', title: 'Build assets, coverage and validation', calls: () => [runJs(BUILD, 'build the JSON outputs')] },
    { id: 'appendix', title: 'Write appendix.md', calls: () => [runJs(APPENDIX, 'write the appendix')] },
  ]
  return stepMachine(steps, (problems) => {
    const missing = [...new Set(problems.flatMap((p) => [...p.matchAll(/episode (\d+) \(/g)].map((m) => Number(m[1]))))]
    const selection = `files.filter((f) => ${JSON.stringify(missing)}.includes(numbers[f]))`
    return {
      id: 'fix',
      title: `Extract the missing episodes (${missing.join(', ')}) and rebuild the outputs`,
      calls: () => [runJs(extract(selection), 'extract missing episodes'), runJs(BUILD, 'rebuild the JSON outputs'), runJs(APPENDIX, 'rewrite the appendix')],
    }
  })
}

/** The follow-up's scripted model: one step, reusing the first execution's /work files. */
export function followUpModel(): (view: ScriptedView) => ScriptedTurn {
  return stepMachine([{ id: 'index', title: 'Write the index of characters by location', calls: () => [runJs(INDEX_BY_LOCATION, 'index characters by location')] }])
}

/**
 * Turns a list of steps into model turns: plan first; in each window do the next step's calls one
 * by one (counting its successful results in this window), then complete the step; submit when all
 * are done (or answer in text when `correction` is not given, i.e. no contract).
 */
function stepMachine(steps: StepScript[], correction?: (problems: string[]) => StepScript): (view: ScriptedView) => ScriptedTurn {
  const extra = new Map<string, StepScript>()
  return (v) => {
    const state = v.state!
    const last = v.last[v.last.length - 1]
    const plan = state.plan
    if (!plan) {
      return { text: `Plan: ${steps.map((s) => s.id).join(', ')}.`, toolCalls: [{ toolName: 'update_plan', input: { steps: steps.map((s, i) => ({ id: s.id, title: s.title, status: i === 0 ? 'in_progress' : 'pending' })) } }] }
    }
    if (last?.toolName === 'submit_result' && !last.ok && correction) {
      const problems = String(last.value).split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2))
      const fix = correction(problems)
      fix.id = `${fix.id}-${plan.steps.filter((s) => s.id.startsWith(fix.id)).length + 1}`
      extra.set(fix.id, fix)
      return { text: 'Adding a correction step.', toolCalls: [{ toolName: 'update_plan', input: { steps: [...plan.steps, { id: fix.id, title: fix.title, status: 'in_progress' }] } }] }
    }
    const next = state.nextStep
    if (!next) return correction ? { toolCalls: [{ toolName: 'submit_result', input: { summary: 'Appendix written.' } }] } : { text: 'Done: see /outputs.' }
    const script = steps.find((s) => s.id === next.id) ?? extra.get(next.id) ?? (correction ? rebuildFix(next.id, next.title, state.rejected ?? [], correction) : undefined)
    if (!script) return { text: `I do not know how to do step ${next.id}.` }
    const calls = script.calls(v)
    const done = v.results.filter((r) => r.ok && r.toolName !== 'update_plan' && !isTitleWrite(r)).length
    if (done < calls.length) return { toolCalls: [calls[done]] }
    const i = plan.steps.findIndex((s) => s.id === next.id)
    return {
      toolCalls: [{ toolName: 'update_plan', input: { steps: plan.steps.map((s, j) => (j === i ? { ...s, status: 'completed' } : j === i + 1 && s.status === 'pending' ? { ...s, status: 'in_progress' } : s)) } }],
    }
  }
}

/** After a restart the model has only the plan and the recorded problems to recreate a correction step. */
function rebuildFix(id: string, title: string, problems: string[], correction: (problems: string[]) => StepScript): StepScript {
  const fix = correction(problems)
  return { ...fix, id, title }
}

/**
 * Asks for a title before the first plan, then works as `decide` does. The answer arrives as the
 * ask_user result of the window that resumes after it, but a plan must come before any other tool
 * call and ends that window: so the title goes into the first step's notes (the plan is what the
 * next windows see), and the next window writes it to {@link TITLE_PATH}, where the appendix
 * program reads it.
 */
export function askingFirst(decide: (view: ScriptedView) => ScriptedTurn): (view: ScriptedView) => ScriptedTurn {
  return (view) => {
    const plan = view.state?.plan
    if (!plan) {
      const asked = view.results.find((r) => r.toolName === 'ask_user' && r.ok)
      if (!asked) return { toolCalls: [{ toolName: 'ask_user', input: { question: TITLE_QUESTION, options: ['Season One', 'Untitled'] } }] }
      return withTitleNote(decide(view), titleFrom(asked.value))
    }
    const noted = plan.steps.map((s) => /^Title: (.+)$/m.exec(s.notes ?? '')?.[1]).find(Boolean)
    const written = view.state?.files.some((f) => f.path === TITLE_PATH) || view.results.some(isTitleWrite)
    if (noted && !written) return { toolCalls: [{ toolName: 'write_file', input: { path: TITLE_PATH, content: noted } }] }
    return decide(view)
  }
}

/** The write of the chosen title; the step machine does not count it as a step's work. */
export const isTitleWrite = (r: { toolName: string; input: unknown }): boolean =>
  r.toolName === 'write_file' && (r.input as { path?: unknown } | undefined)?.path === TITLE_PATH

function withTitleNote(turn: ScriptedTurn, title: string): ScriptedTurn {
  const calls = turn.toolCalls?.map((c) => {
    const input = c.input as { steps?: Array<Record<string, unknown>> }
    if (c.toolName !== 'update_plan' || !input.steps?.length) return c
    const [first, ...rest] = input.steps
    return { ...c, input: { ...input, steps: [{ ...first, notes: `Title: ${title}` }, ...rest] } }
  })
  return calls ? { ...turn, toolCalls: calls } : turn
}

/** What the asking profile asks before it plans. */
export const TITLE_QUESTION = 'What title should the appendix have?'

/** The answer as a one-line title (a person may type anything; the heading stays one line). */
function titleFrom(value: unknown): string {
  const answer = typeof value === 'string' ? value : (value as { answer?: unknown } | undefined)?.answer
  const line = String(answer ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)
  return line || 'Production appendix'
}
