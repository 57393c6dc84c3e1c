import { RunJsSuspension, type RunJsTool } from 'agent-vfs'
import { z } from 'zod'
import { defineTool, ToolError } from './tool.js'

/** Answers a question of the model; used when `ask_user` runs outside runTask. */
export type AskUser = (question: string, options?: string[]) => Promise<string>

/** The input schema of `ask_user`. */
export const askUserSchema = z.object({
  question: z.string().min(1).max(2000),
  options: z.array(z.string()).max(10).optional().describe('Suggested answers'),
})

/**
 * `ask_user`: asks the person running the task a question. Inside `runTask` the execution is
 * suspended with a durable pending question and resumes with the answer as this tool's result.
 */
export function askUserTool(ask?: AskUser) {
  return defineTool({
    description: 'Ask the user a question when you cannot proceed without their decision. The task pauses until they answer.',
    inputSchema: askUserSchema,
    kind: 'control',
    effect: 'suspends',
    async execute({ question, options }) {
      if (!ask)
        throw new ToolError(
          'unavailable',
          'Nobody can be asked in this setting.',
          'decide yourself, state your assumption in the plan notes, and continue.',
        )
      return { answer: await ask(question, options) }
    },
  })
}

/**
 * `ask_user` for run_js programs (`external_ask_user({ question, options })`): it parks the program
 * with a question; the execution suspends as for the model's own `ask_user`, and the program resumes
 * with `{ answer }` as the call's result (see docs/run-js.md, "Programs that ask and wait").
 */
export const programAskUser: RunJsTool = {
  inputSchema: askUserSchema,
  execute(input) {
    const { question, options } = input as z.output<typeof askUserSchema>
    throw new RunJsSuspension({ kind: 'question', question, ...(options ? { options } : {}) }, 'the program asks the user a question')
  },
}
