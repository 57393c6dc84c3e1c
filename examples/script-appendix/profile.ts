import { createRunJs, type RunJsOptions, type RunVfs } from 'agent-vfs'
import { openAiCompatibleModel, scriptedModel, type OpenAiCompatibleOptions, type PolicyRule } from 'agent-vfs/agent'
import type { AgentProfile } from 'agent-vfs/session'
import { appendixModel, askingFirst, followUpModel } from './scripted.js'
import { ALLOW_RUN_JS, ASK_OUTSIDE_WORK, ASK_RUN_JS, appendixContract } from './task.js'

/** Options of {@link scriptAppendixProfile}. */
export interface ScriptAppendixProfileOptions {
  /** run_js programs need approval too (answer "always" once to let the rest through). Default false. */
  approveRunJs?: boolean
  /** The scripted model asks the user for the appendix title before it plans. Default false. */
  askFirst?: boolean
  /** Use an OpenAI-compatible model instead of the scripted one. */
  openAi?: OpenAiCompatibleOptions
  /**
   * More options of run_js. In a Cloudflare Worker: `{ engine: workerdEngine(), typescript: false }`
   * (the example's programs are plain JavaScript; `agent-vfs/run-js/workerd` has the engine).
   */
  runJs?: Omit<RunJsOptions, 'vfs'>
}

/**
 * The script-appendix task as a session profile: the first execution of a session writes the
 * appendix under its result contract, later ones are follow-ups (the scripted follow-up model
 * writes the characters-by-location index). Inputs are uploaded into /context.
 */
export function scriptAppendixProfile(options: ScriptAppendixProfileOptions = {}): AgentProfile {
  const policy: PolicyRule[] = options.approveRunJs ? [ASK_RUN_JS, ASK_OUTSIDE_WORK] : [ALLOW_RUN_JS, ASK_OUTSIDE_WORK]
  return {
    description: 'Writes a production appendix for a season of episode scripts uploaded into /context',
    setup({ index }) {
      const first = index === 1
      const decide = first ? appendixModel() : followUpModel()
      const model = options.openAi ? openAiCompatibleModel(options.openAi) : scriptedModel(options.askFirst && first ? askingFirst(decide) : decide)
      return {
        model,
        ...(first ? { contract: appendixContract } : {}),
        policy,
        runJs: (vfs: RunVfs) => createRunJs({ ...options.runJs, vfs }),
      }
    },
  }
}
