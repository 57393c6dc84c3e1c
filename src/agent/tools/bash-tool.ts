import type { RunVfs, Vfs } from 'agent-vfs'
import { isVfsError } from 'agent-vfs'
import { z } from 'zod'
import { defineTool, ToolError } from './tool.js'

/** How a command line ended (`createBash(...).exec` of `agent-vfs/bash` resolves to it). */
export interface BashRunResult {
  stdout: string
  stderr: string
  exitCode: number
}

/** Anything that runs a bash command line over a workspace, e.g. `createBash({ vfs })` of `agent-vfs/bash`. */
export interface BashRunner {
  exec(script: string, options?: { signal?: AbortSignal; deadline?: number }): Promise<BashRunResult>
}

/**
 * Makes the shell from the workspace view it must use: `(view) => createBash({ vfs: view })`. The
 * view has `/state` read-only and checks the policy on each file operation (a rule that asks
 * refuses the operation: a command line cannot wait for a person). A factory, not a shell, for the
 * reason run_js's is ({@link RunJsSlot}).
 */
export type BashSlot = (vfs: RunVfs) => BashRunner

/** What the bash tool returns: what the command line printed, and where its script was archived. */
export interface BashToolOutput extends BashRunResult {
  scriptPath?: string
}

/** Options of {@link bashTool}. */
export interface BashToolOptions {
  /** Where scripts are archived (`/state/.bash/cmd-NNN.sh`): a workspace in which /state is writable. */
  archive?: Vfs
  /** The run's deadline for this call (ms since the epoch), e.g. from what is left of its budget. */
  deadline?: () => number | undefined
  /** Hears how long each command line ran (the task loop counts it against the run_js CPU budget). */
  onRun?: (ms: number) => void
}

export const BASH_ARCHIVE_DIR = '/state/.bash'

export const BASH_DESCRIPTION = [
  'Runs one bash command line (any script: pipes, redirections, loops, coreutils, grep, sed, awk, jq, find, xargs)',
  'over the workspace (/context and /skills read-only, /work and /outputs writable). What it writes lands',
  'as one commit when it exits 0; a command line that fails (use `set -eo pipefail`), times out or is',
  'stopped writes nothing. No network. stdout and stderr come back.',
].join(' ')

/** `bash`: one command line over the workspace; a non-zero exit is a tool error carrying its output. */
export function bashTool(runner: BashRunner, options: BashToolOptions = {}) {
  return defineTool({
    description: BASH_DESCRIPTION,
    inputSchema: z.object({
      script: z
        .string()
        .min(1)
        .max(1024 * 1024)
        .describe('The command line (a bash script).'),
      description: z.string().max(300).optional().describe('What it does, for the log'),
    }),
    access: () => ({ access: 'write', paths: [], perOperation: true }),
    async execute({ script }, callOptions) {
      const scriptPath = options.archive ? await archiveBashScript(options.archive, script) : undefined
      const deadline = options.deadline?.()
      const started = Date.now()
      let result: BashRunResult
      try {
        result = await runner.exec(script, {
          ...(callOptions.abortSignal ? { signal: callOptions.abortSignal } : {}),
          ...(deadline !== undefined ? { deadline } : {}),
        })
      } finally {
        options.onRun?.(Date.now() - started)
      }
      const out: BashToolOutput = { ...result, ...(scriptPath ? { scriptPath } : {}) }
      if (result.exitCode === 0) return out
      throw new ToolError(
        'failed',
        `The command line exited ${result.exitCode}; nothing it wrote landed. stderr: ${tail(result.stderr)} stdout: ${tail(result.stdout)}`,
        'fix the command line and run it again; try it on one file first if unsure.',
        { ...out },
      )
    },
  })
}

function tail(text: string): string {
  const t = text.trim()
  return JSON.stringify(t.length > 2000 ? `…${t.slice(-2000)}` : t)
}

/** Writes the script as the next free `cmd-NNN.sh` (numbers claimed with create-if-absent, as run_js's archive does). */
async function archiveBashScript(vfs: Vfs, script: string): Promise<string> {
  let n = (await vfs.exists(BASH_ARCHIVE_DIR)) ? (await vfs.readdir(BASH_ARCHIVE_DIR)).length + 1 : 1
  for (let attempt = 0; attempt < 100; attempt++, n++) {
    const path = `${BASH_ARCHIVE_DIR}/cmd-${String(n).padStart(3, '0')}.sh`
    try {
      await vfs.writeFile(path, script, { expectedVersion: 0 })
      return path
    } catch (error) {
      if (!isVfsError(error, 'ECONFLICT')) throw error
    }
  }
  throw new Error(`bash: could not claim a script number in ${BASH_ARCHIVE_DIR}`)
}
