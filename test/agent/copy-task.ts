import { z } from 'zod'
import type { ResultContract, ScriptedTurn, ScriptedView } from '../../src/agent/index.js'

/** The test task: upper-case every /context/*.md into /outputs, then list them in /outputs/result.json. */
export const COPY_INSTRUCTIONS =
  'Upper-case each Markdown file of /context into /outputs (same name) and list them in /outputs/result.json as { "files": [...] }.'

/** Contract: the listed files are exactly the context files, and each output exists and is upper case. */
export const copyContract: ResultContract<{ files: string[] }> = {
  description: '{ files: string[] } naming every /context/*.md, each present upper-cased in /outputs',
  schema: z.object({ files: z.array(z.string()) }),
  resultPath: '/outputs/result.json',
  checks: [
    async (r, { vfs }) => {
      const problems: string[] = []
      const inputs = (await vfs.glob('/context/*.md')).map(p => p.slice('/context/'.length))
      for (const name of inputs) if (!r.files.includes(name)) problems.push(`${name} is missing from files`)
      for (const name of r.files) {
        if (!(await vfs.exists(`/outputs/${name}`))) problems.push(`/outputs/${name} does not exist`)
      }
      return problems
    },
  ],
}

/** One work action of the scripted model, for checking that completed steps are not redone. */
export interface Action {
  step: string
  tool: string
  path?: string
}

/** Options that make the scripted model err on purpose. */
export interface CopyModelOptions {
  /** Leave this file out of the first result.json (the contract then rejects it). */
  gap?: string
  /** Actions are appended here. */
  log?: Action[]
}

/** Text of a read_file result without its header and line numbers. */
export function fileText(value: unknown): string {
  return String(value)
    .split('\n')
    .slice(1)
    .filter(l => /^\s*\d+\t/.test(l))
    .map(l => l.replace(/^\s*\d+\t/, ''))
    .join('\n')
}

/**
 * A scripted model for the copy task: it plans one step per input file plus a result step, does each
 * step with read_file/write_file, completes it, submits, and fixes a rejected result with a new step.
 * It decides only from what it is shown: the window's state block and the tool results.
 */
export function copyModel(names: string[], options: CopyModelOptions = {}) {
  let gapUsed = false
  return (v: ScriptedView): ScriptedTurn => {
    const s = v.state!
    const last = v.last[v.last.length - 1]
    const act = (step: string, tool: string, input: Record<string, unknown>): ScriptedTurn => {
      options.log?.push({ step, tool, ...(typeof input.path === 'string' ? { path: input.path } : {}) })
      return { toolCalls: [{ toolName: tool, input }] }
    }
    if (!s.plan) {
      return {
        text: 'Planning.',
        toolCalls: [
          {
            toolName: 'update_plan',
            input: {
              steps: [
                ...names.map((n, i) => ({
                  id: `copy-${n}`,
                  title: `Upper-case ${n}`,
                  status: i === 0 ? 'in_progress' : 'pending',
                })),
                { id: 'result', title: 'Write result.json', status: 'pending' },
              ],
            },
          },
        ],
      }
    }
    const steps = s.plan.steps
    if (last?.toolName === 'submit_result' && !last.ok) {
      const fix = `fix-${steps.filter(x => x.id.startsWith('fix-')).length + 1}`
      return {
        toolCalls: [
          {
            toolName: 'update_plan',
            input: { steps: [...steps, { id: fix, title: 'Fix the rejected result', status: 'in_progress' }] },
          },
        ],
      }
    }
    const next = s.nextStep
    if (!next) return { toolCalls: [{ toolName: 'submit_result', input: { summary: `${names.length} files` } }] }
    const complete = (): ScriptedTurn => ({
      toolCalls: [
        {
          toolName: 'update_plan',
          input: {
            steps: steps.map((x, i) =>
              x.id === next.id
                ? { ...x, status: 'completed' }
                : i === steps.findIndex(y => y.id === next.id) + 1
                  ? { ...x, status: 'in_progress' }
                  : x,
            ),
          },
        },
      ],
    })
    if (next.id.startsWith('copy-')) {
      const name = next.id.slice('copy-'.length)
      if (last?.toolName === 'write_file' && last.ok) return complete()
      if (last?.toolName === 'read_file' && last.ok)
        return act(next.id, 'write_file', { path: `/outputs/${name}`, content: fileText(last.value).toUpperCase() })
      return act(next.id, 'read_file', { path: `/context/${name}` })
    }
    // result, or a fix step: write result.json (with the gap the first time).
    if (last?.toolName === 'write_file' && last.ok) return complete()
    const files = names.filter(n => !(options.gap === n && !gapUsed))
    if (options.gap) gapUsed = true
    return act(next.id, 'write_file', { path: '/outputs/result.json', content: JSON.stringify({ files }) })
  }
}
