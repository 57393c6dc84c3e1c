import {
  createCodeModeInstructions,
  createTool,
  type CodeModeConfig,
  type CodeModeResult,
  type ToolExecutionContext,
} from '@mastra/core/tools'
import { RunJsSuspension, type RunJsJournal, type Vfs } from 'agent-vfs'
import { z } from 'zod'
import { codeModeResult, observedTool, QuickJsCodeModeTransport, type FetchPark } from './code-mode.js'

/** Options of {@link createSuspendableCodeMode}: Mastra's Code Mode config (no sandbox: programs run in QuickJS here). */
export interface SuspendableCodeModeConfig extends Omit<CodeModeConfig, 'sandbox'> {
  /**
   * The workspace that keeps a waiting program's journal (the transport's own `vfs` if it has one),
   * as `<journalDir>/<toolCallId>.json` until the program is resumed.
   */
  vfs?: Vfs
  /** Where journals are kept. Default `/.code_mode`. */
  journalDir?: string
}

/** What the journal file holds: the run's journal and the tool that asked. */
interface KeptJournal {
  tool: string
  journal: RunJsJournal
}

const DEFAULT_JOURNAL_DIR = '/.code_mode'
/** The tool a program's fetch is (`external_fetch`): what a journal kept for its approval names. */
const FETCH_TOOL = 'fetch'
const DEFAULT_TIMEOUT = 30_000

/**
 * Mastra Code Mode (`createCodeMode`) whose programs can wait for a person. A tool the program calls
 * that suspends the Mastra way (`context.agent.suspend(payload)` or `context.suspend(payload)`, as
 * Mastra's `ask_user` does) parks the program: its journal goes into the workspace, and the
 * `execute_typescript` call itself suspends with that tool's payload (a `tool-call-suspended` chunk;
 * `finishReason: 'suspended'`). `agent.resumeStream(answer, { runId, toolCallId })` (or
 * `resumeGenerate`) runs the program again against its journal: the host calls it completed are
 * answered from the journal (not repeated), and the tool that asked runs again with
 * `resumeData: answer`, as Mastra runs a suspended tool on resume. A fetch the transport's policy
 * asks about (`fetch: { allow, policy }` and no `ask` callback) parks the program the same way, with
 * `{ kind: 'approval', reason, fetch: { url, origin, method } }`; resumed with `{ approved: true }`,
 * the request is sent once (anything else refuses it). The transport's `run` (what Mastra's own
 * `createCodeMode` calls) cannot suspend: Mastra's dispatch gives tools no `suspend`.
 *
 * ```ts
 * const { tool, instructions } = createSuspendableCodeMode({ tools: { ask_user: askUserTool, lookup }, vfs }, new QuickJsCodeModeTransport())
 * const agent = new Agent({ …, instructions: [base, instructions], tools: { [tool.id]: tool } })
 * ```
 */
export function createSuspendableCodeMode(config: SuspendableCodeModeConfig, transport = new QuickJsCodeModeTransport()): CodeModeResult {
  const timeout = config.timeout ?? DEFAULT_TIMEOUT
  const vfs = config.vfs ?? transport.workspace
  if (!vfs) throw new TypeError('createSuspendableCodeMode: a workspace is needed to keep journals (config.vfs or the transport’s vfs)')
  const dir = (config.journalDir ?? DEFAULT_JOURNAL_DIR).replace(/\/+$/, '')
  const toolsById = new Map(Object.entries(config.tools).map(([key, tool]) => [(tool as { id?: string }).id ?? key, tool as Tool]))
  const tool = createTool({
    id: config.id ?? 'execute_typescript',
    description:
      'Execute a TypeScript program that orchestrates the available tools in a sandbox. Prefer this over calling tools one at a time when a task needs multiple tool calls, batching, aggregation, or arithmetic.',
    inputSchema: z.object({ code: z.string().describe('The TypeScript program to execute') }),
    execute: async ({ code }, ctx) => {
      const context = ctx as ToolExecutionContext
      const callId = context.agent?.toolCallId
      const path = callId ? `${dir}/${safeName(callId)}.json` : undefined
      const resumeData = context.agent?.resumeData ?? context.resumeData
      const kept = path && resumeData !== undefined ? await readKept(vfs, path) : undefined
      let resumed = kept !== undefined
      let asked: { tool: string; payload: unknown } | undefined
      const tools = Object.fromEntries(
        [...toolsById].map(([id, inner]) => {
          const call = async (input: unknown) => {
            if (!inner.execute) throw new Error(`Tool "${id}" is not available in Code Mode`)
            // The tool that asked runs again with the answer (Mastra's resume of a suspended tool); no other call sees it.
            const answer = resumed && kept?.tool === id ? ((resumed = false), { resumeData }) : {}
            let payload: { value: unknown } | undefined
            const suspend = async (value: unknown) => void (payload = { value })
            const result = await inner.execute(input, {
              mastra: context.mastra,
              requestContext: context.requestContext,
              abortSignal: context.abortSignal,
              workspace: context.workspace,
              ...(context.agent ? { agent: { ...context.agent, suspend, resumeData: answer.resumeData } } : {}),
              suspend,
              ...answer,
            } as ToolExecutionContext)
            if (payload) throw new RunJsSuspension({ tool: id, payload: payload.value })
            if (isValidationError(result)) throw new Error(result.message ?? `Invalid input for tool "${id}"`)
            return result
          }
          return [id, observedTool(id, call)]
        }),
      )
      // A fetch the transport's policy asks about (code-mode.ts): the program waits for a person; resumed, the answer decides it once.
      const park: FetchPark = ({ url, origin, method, reason }) => {
        if (resumed && kept?.tool === FETCH_TOOL) return ((resumed = false), approved(resumeData) ? 'allow' : 'deny')
        const payload = { kind: 'approval', reason, fetch: { url, origin, method } }
        throw new RunJsSuspension(
          { tool: FETCH_TOOL, payload },
          `the policy asks a person before this program may ${method} ${origin} (${reason})`,
        )
      }
      const r = await transport.runProgram(
        code,
        tools,
        timeout,
        { signal: context.abortSignal, ...(kept ? { resume: { journal: kept.journal, answer: { retry: true } } } : { suspendable: true }) },
        park,
      )
      if (r.suspended && path) {
        asked = r.suspended.request as { tool: string; payload: unknown }
        const keep: KeptJournal = { tool: asked.tool, journal: r.suspended.journal }
        await vfs.writeFile(path, JSON.stringify(keep))
        const suspendTool = context.agent?.suspend ?? context.suspend
        if (suspendTool) {
          await suspendTool(asked.payload)
          return undefined
        }
      }
      if (kept && path) await vfs.deleteFile(path).catch(() => {})
      return codeModeResult(r)
    },
  })
  return { tool, instructions: createCodeModeInstructions(config) }
}

/** A person's answer to a fetch approval: `{ approved: true }` (or `true`) sends the request; anything else refuses it. */
function approved(answer: unknown): boolean {
  return answer === true || (typeof answer === 'object' && answer !== null && (answer as { approved?: unknown }).approved === true)
}

type Tool = { execute?: (input: unknown, context: ToolExecutionContext) => Promise<unknown> }

async function readKept(vfs: Vfs, path: string): Promise<KeptJournal | undefined> {
  if (!(await vfs.exists(path))) return undefined
  return JSON.parse(await vfs.readFile(path, 'utf8')) as KeptJournal
}

/** A tool call id as a file name (ids are the model's or the provider's: anything may be in them). */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, c => `~${c.charCodeAt(0).toString(16)}`)
}

function isValidationError(value: unknown): value is { error: true; message?: string } {
  return typeof value === 'object' && value !== null && (value as { error?: unknown }).error === true && 'validationErrors' in value
}
