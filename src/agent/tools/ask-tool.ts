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
