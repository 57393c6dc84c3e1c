/**
 * The main job of the example: runs the script-appendix task end to end on a persistent workspace,
 * then the follow-up, printing plan steps, tool calls and checkpoints, and copies /outputs to a
 * folder. Run again with the same --session to resume an interrupted run.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createRunJs, memoryStore, openVfs, postgresStore, scopeRun, type RunVfs, type VfsStore } from 'agent-vfs'
import { listExecutionIds, openAiCompatibleModel, readExecution, resumeTask, runTask, scriptedModel, type ExecutionEvent, type LanguageModel, type PendingAnswer, type PolicyRule, type TaskResult } from 'agent-vfs/agent'
import { generateEpisodes } from './generator.js'
import { InputError, readInputFolder } from './input.js'
import { appendixModel, askingFirst, followUpModel } from './scripted.js'
import { ALLOW_RUN_JS, APPENDIX_INSTRUCTIONS, ASK_OUTSIDE_WORK, FOLLOW_UP_INSTRUCTIONS, appendixContract, seedInput } from './task.js'

/** What the job prints to and asks through; the CLI passes the console and the terminal. */
export interface JobIo {
  log(line: string): void
  error(line: string): void
  /** Asks the person at the terminal; undefined when nobody can answer (not a TTY). */
  ask?: (prompt: string) => Promise<string>
}

/** Exit codes: done, a run failed, bad options or input, stopped (interrupted or waiting for an answer). */
export const EXIT = { ok: 0, failed: 1, usage: 2, stopped: 3 } as const

export const USAGE = `usage: npm start -- [options]
  --input DIR           folder with characters.md and *.fountain episodes (default: 60 generated episodes)
  --out DIR             where /outputs is copied (default: out)
  --store KIND          memory | pglite:DIR | postgres:URL (default: pglite:.agent-vfs)
  --session ID          workspace session; the same ID continues it (default: script-appendix)
  --interrupt-after N   stop after N tool calls (run again with the same --session to resume)
  --approve MODE        ask | all: how approvals and questions are answered (default: ask)
  --ask-title           the agent asks for the appendix's title first (answered like --approve says)
  --model KIND          scripted | openai-compatible (default: scripted)
  --base-url URL --api-key KEY --model-id ID   for --model openai-compatible (key also from OPENAI_API_KEY)`

class UsageError extends Error {}

interface JobOptions {
  input?: string
  out: string
  store: { kind: 'memory' } | { kind: 'pglite'; dir: string } | { kind: 'postgres'; url: string }
  session: string
  interruptAfter?: number
  approve: 'ask' | 'all'
  askTitle: boolean
  model: { kind: 'scripted' } | { kind: 'openai-compatible'; baseUrl: string; apiKey?: string; modelId: string }
}

/** Parses the command line; throws a UsageError with a clear message. */
function parse(argv: string[], env: Record<string, string | undefined>): JobOptions {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        input: { type: 'string' }, out: { type: 'string' }, store: { type: 'string' }, session: { type: 'string' },
        'interrupt-after': { type: 'string' }, approve: { type: 'string' }, 'ask-title': { type: 'boolean' }, model: { type: 'string' },
        'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'model-id': { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (values.help) throw new UsageError('')
  const store = String(values.store ?? 'pglite:.agent-vfs')
  let storeOption: JobOptions['store']
  if (store === 'memory') storeOption = { kind: 'memory' }
  else if (store.startsWith('pglite:') && store.length > 7) storeOption = { kind: 'pglite', dir: resolve(store.slice(7)) }
  else if (store.startsWith('postgres:') && /^postgres(ql)?:\/\//.test(store.slice(9))) storeOption = { kind: 'postgres', url: store.slice(9) }
  else throw new UsageError(`--store must be memory, pglite:DIR or postgres:postgres://…, got ${JSON.stringify(store)}`)
  const session = String(values.session ?? 'script-appendix')
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(session)) throw new UsageError('--session must be letters, digits, ".", "_" or "-"')
  let interruptAfter: number | undefined
  if (values['interrupt-after'] !== undefined) {
    interruptAfter = Number(values['interrupt-after'])
    if (!Number.isInteger(interruptAfter) || interruptAfter < 1) throw new UsageError('--interrupt-after must be a whole number of tool calls, at least 1')
  }
  const approve = String(values.approve ?? 'ask')
  if (approve !== 'ask' && approve !== 'all') throw new UsageError('--approve must be ask or all')
  const modelKind = String(values.model ?? 'scripted')
  let model: JobOptions['model']
  if (modelKind === 'scripted') model = { kind: 'scripted' }
  else if (modelKind === 'openai-compatible') {
    const baseUrl = values['base-url'] as string | undefined
    const modelId = values['model-id'] as string | undefined
    if (!baseUrl || !/^https?:\/\//.test(baseUrl)) throw new UsageError('--model openai-compatible needs --base-url http(s)://…/v1')
    if (!modelId) throw new UsageError('--model openai-compatible needs --model-id')
    const apiKey = (values['api-key'] as string | undefined) ?? env.OPENAI_API_KEY
    model = { kind: 'openai-compatible', baseUrl, modelId, ...(apiKey ? { apiKey } : {}) }
  } else throw new UsageError('--model must be scripted or openai-compatible')
  return { ...(values.input ? { input: resolve(String(values.input)) } : {}), out: resolve(String(values.out ?? 'out')), store: storeOption, session, ...(interruptAfter ? { interruptAfter } : {}), approve, askTitle: values['ask-title'] === true, model }
}

/** Opens the store; `close` releases it. */
async function openStore(option: JobOptions['store']): Promise<{ store: VfsStore; close(): Promise<void>; label: string }> {
  if (option.kind === 'memory') return { store: memoryStore(), close: async () => {}, label: 'memory' }
  if (option.kind === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite')
    mkdirSync(option.dir, { recursive: true })
    const db = await PGlite.create(join(option.dir, 'pglite'))
    const store = postgresStore({ client: db })
    await store.migrate()
    return { store, close: () => db.close(), label: `PGlite in ${option.dir}` }
  }
  const pg = (await import('pg')).default
  const pool = new pg.Pool({ connectionString: option.url, max: 4 })
  const store = postgresStore({ client: pool })
  await store.migrate()
  return { store, close: () => pool.end(), label: 'Postgres' }
}

/** Prints an execution's events as progress lines. */
function progress(io: JobIo): (e: ExecutionEvent) => void {
  return (e) => {
    switch (e.type) {
      case 'execution-start': return io.log(`▶ execution ${e.executionId}${e.resumed ? ' (resumed)' : ''}`)
      case 'window-start': return io.log(`  window ${e.window} (${e.reason})`)
      case 'plan-updated':
        for (const s of e.plan.steps) io.log(`    ${s.status === 'completed' ? '✔' : s.status === 'in_progress' ? '…' : '·'} ${s.id}: ${s.title}`)
        return
      case 'tool-call': {
        const input = e.input as Record<string, unknown>
        const what = typeof input?.description === 'string' ? input.description : typeof input?.path === 'string' ? input.path : ''
        return io.log(`  → ${e.toolName}${what ? ` ${what}` : ''}`)
      }
      case 'tool-result': return e.ok || e.error?.code === 'result-rejected' ? undefined : io.log(`    ✗ ${e.error?.message.split('\n')[0]}`)
      case 'checkpoint': return io.log(`  ✓ checkpoint r${e.revision}`)
      case 'result-rejected': return io.log(`  ✗ result rejected:\n${e.problems.map((p) => `      - ${p}`).join('\n')}`)
      case 'result-accepted': return io.log('  ✔ result accepted')
      case 'approval-required': return io.log(`  ? approval needed for ${e.toolName}: ${e.reason}`)
      case 'question': return io.log(`  ? question: ${e.question}`)
      case 'error': return io.log(`  ! ${e.code}: ${e.message}`)
      case 'execution-end': return io.log(`■ ${e.executionId} ${e.status}${e.error ? `: ${e.error.message}` : ''}`)
      default: return undefined
    }
  }
}

/** Runs the job; resolves to the process exit code. */
export async function runJob(argv: string[], io: JobIo, env: Record<string, string | undefined> = {}): Promise<number> {
  let options: JobOptions
  let input: Record<string, string>
  try {
    options = parse(argv, env)
    const skipped: string[] = []
    input = options.input ? readInputFolder(options.input, skipped) : generateEpisodes().files
    if (skipped.length) io.log(`--input: skipped ${skipped.length} file(s) that are not characters.md or *.fountain: ${skippedList(skipped)}`)
  } catch (error) {
    if (error instanceof UsageError) {
      io.error(error.message ? `${error.message}\n\n${USAGE}` : USAGE)
      return error.message ? EXIT.usage : EXIT.ok
    }
    if (error instanceof InputError) {
      io.error(error.message)
      return EXIT.usage
    }
    throw error
  }
  const opened = await openStore(options.store)
  try {
    const base = await openVfs({ store: opened.store, namespace: 'script-appendix', scope: options.session })
    const run = scopeRun(base, { runId: 'main' })
    io.log(`session ${options.session} on ${opened.label}`)
    const code = await drive(run, options, input, io)
    await copyOutputs(run, options.out)
    io.log(`outputs copied to ${options.out}`)
    await base.close()
    return code
  } finally {
    await opened.close()
  }
}

async function drive(run: RunVfs, options: JobOptions, input: Record<string, string>, io: JobIo): Promise<number> {
  const controller = new AbortController()
  let calls = 0
  const onProgress = progress(io)
  const onEvent = (e: ExecutionEvent) => {
    onProgress(e)
    if (e.type === 'tool-call' && options.interruptAfter !== undefined && ++calls >= options.interruptAfter && !controller.signal.aborted) {
      io.log(`  ⏹ stopping after ${calls} tool calls (--interrupt-after)`)
      controller.abort()
    }
  }
  const model = (scripted: () => ReturnType<typeof appendixModel>): LanguageModel =>
    options.model.kind === 'scripted' ? scriptedModel(scripted()) : openAiCompatibleModel(options.model)
  // Deliverables are written by run_js programs, which this job trusts (the first matching rule
  // decides; without the allow, run_js could write anywhere and would need approval); a file tool
  // writing outside /work needs approval.
  const policy: PolicyRule[] = [ALLOW_RUN_JS, ASK_OUTSIDE_WORK]
  const common = { vfs: run, policy, onEvent, signal: controller.signal, runJs: (vfs: RunVfs) => createRunJs({ vfs }) }

  const stages = [
    { instructions: APPENDIX_INSTRUCTIONS, contract: appendixContract, model: () => model(options.askTitle ? () => askingFirst(appendixModel()) : appendixModel) },
    { instructions: FOLLOW_UP_INSTRUCTIONS, contract: undefined, model: () => model(followUpModel) },
  ] as const
  const ids = await listExecutionIds(run)
  if (ids.length === 0) await seedInput(run, input)
  const finished = ids.length >= stages.length && (await Promise.all(ids.map((id) => readExecution(run, id)))).every((r) => r?.status === 'completed')
  if (finished && options.interruptAfter !== undefined) {
    io.log(`session ${options.session} is already complete, so there is nothing to interrupt: use a new --session (e.g. --session resume-demo) to watch a run stop and resume`)
  }
  for (const [i, stage] of stages.entries()) {
    const id = ids[i]
    const record = id ? await readExecution(run, id) : undefined
    if (record?.status === 'completed') {
      io.log(`✔ ${id} already completed: ${record.instructions.split('\n')[0]}`)
      continue
    }
    if (record?.status === 'failed') {
      io.error(`execution ${id} failed earlier (${record.error?.message}); start a new session with --session`)
      return EXIT.failed
    }
    const args = { ...common, model: stage.model(), ...(stage.contract ? { contract: stage.contract } : {}) }
    let result: TaskResult = record ? await resumeTask(args) : await runTask({ ...args, instructions: stage.instructions })
    while (result.status === 'suspended' && result.pending) {
      const answer = await answerFor(result.pending, options.approve, io)
      if (!answer) {
        io.log(`waiting for an answer to ${result.pending.id}; run again with --approve all, or answer at a terminal`)
        return EXIT.stopped
      }
      result = await resumeTask({ ...args, answer })
    }
    if (result.status === 'interrupted') {
      io.log(
        options.store.kind === 'memory'
          ? 'stopped; the memory store does not outlive this process, so there is nothing to resume: use --store pglite:DIR (the default) to see a resume'
          : `stopped; run again with --session ${options.session} (same --store) to resume from the last checkpoint`,
      )
      return EXIT.stopped
    }
    if (result.status !== 'completed') {
      io.error(`execution ${result.executionId} ${result.status}: ${result.error?.message ?? ''}`)
      return EXIT.failed
    }
    io.log(`  ${result.executionId}: ${result.toolCalls} tool calls, ${result.windows} windows, ${result.usage.totalTokens} tokens`)
  }
  return EXIT.ok
}

async function answerFor(pending: NonNullable<TaskResult['pending']>, mode: 'ask' | 'all', io: JobIo): Promise<PendingAnswer | undefined> {
  if (pending.kind === 'question') {
    if (mode === 'all') return { answer: pending.options?.[0] ?? 'Use your best judgement.' }
    const text = await io.ask?.(`${pending.question} `)
    return text === undefined ? undefined : { answer: text }
  }
  if (mode === 'all') return { decision: 'approve' }
  const reply = await io.ask?.(`allow ${pending.toolName} ${JSON.stringify(pending.input).slice(0, 200)}? [y]es / [n]o / [a]lways `)
  if (reply === undefined) return undefined
  const r = reply.trim().toLowerCase()
  return r.startsWith('a') ? { decision: 'always' } : r.startsWith('y') ? { decision: 'approve' } : { decision: 'deny' }
}

async function copyOutputs(run: RunVfs, out: string): Promise<void> {
  for (const path of await run.glob('/outputs/**')) {
    const target = join(out, path.slice('/outputs/'.length))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, await run.readFile(path))
  }
}

/** The skipped paths for a log line: sorted, at most ten named. */
function skippedList(paths: string[]): string {
  const sorted = [...paths].sort()
  return sorted.slice(0, 10).join(', ') + (sorted.length > 10 ? ` and ${sorted.length - 10} more` : '')
}
