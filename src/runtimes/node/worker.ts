/**
 * The worker-thread side of `workerThreads()`: runs one program at a time with the ordinary in-thread
 * runner, over stand-ins for the workspace and the tools that ask the host thread for everything.
 * Built as one self-contained CommonJS script (dist/run-js-node-worker.js: its own core and QuickJS's
 * JavaScript), which dist/run-js-node.js carries as text and starts with `new Worker(code, { eval: true })`.
 * The wasm is not in it: the host thread compiles it once and sends the module (quickjs-module.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
// Relative imports on purpose: this script runs in its own isolate, where the host's core is not
// reachable, so it is built with its own copy of the core (scripts/build.mjs, `isolate: true`).
import { DEFAULT_LIMITS } from '../../run-js/engine/limits.js'
import { variantEngine } from '../../run-js/engine/engine.js'
import { InstancePool } from '../../run-js/engine/pool.js'
import { HOST_VFS_METHODS } from '../../run-js/host/host-calls.js'
import { createRunner, runnerEnv } from '../../run-js/index.js'
import { runProgram, type RunEnv } from '../../run-js/run.js'
import type { RunJsToolFunction } from '../../run-js/types.js'
import type { Answer } from '../../run-js/guest/guest-api.js'
import type { Vfs } from '../../vfs/types.js'
import type { AnswerMessage, CallMessage, FromWorker, RunMessage, ToWorker, WireError } from './protocol.js'

if (!parentPort) throw new Error('agent-vfs run_js worker: this file runs only as a worker thread (see workerThreads())')
const port = parentPort

// Linux gives each thread its own niceness (setpriority on "this process" sets the calling thread's):
// the programs' CPU yields to the host thread. Elsewhere it would lower the whole process: left alone.
const nice = (workerData as { nice?: number } | null)?.nice
if (nice && process.platform === 'linux') {
  try {
    setPriority(0, nice)
  } catch {
    // Not allowed here (a sandbox): the thread keeps the host's priority.
  }
}

/** Which run an asynchronous chain belongs to, so a late call of a finished run is refused, not misattributed. */
const currentRun = new AsyncLocalStorage<number>()
const calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
let nextCall = 0
/** The run in progress, by id (one at a time): its controller and its calls still waiting for an answer. */
const running = new Map<number, { controller: AbortController; calls: Set<number> }>()

/** The QuickJS wasm, compiled by the host thread: its first message (quickjs-module.ts). */
let receiveQuickJs!: (message: Extract<ToWorker, { type: 'quickjs' }>) => void
const quickJs = new Promise<WebAssembly.Module>((resolve, reject) => {
  receiveQuickJs = message => ('module' in message ? resolve(message.module) : reject(new Error(message.error)))
})
quickJs.catch(() => {}) // each instance that needs it reports the failure
const engine = variantEngine({ wasmModule: () => quickJs })

/** Module instances by memory limit, shared by every run of this thread. */
const pools = new Map<number, InstancePool>()
function poolFor(memoryBytes: number): InstancePool {
  let pool = pools.get(memoryBytes)
  if (!pool) pools.set(memoryBytes, (pool = new InstancePool(engine, memoryBytes)))
  return pool
}

/**
 * One stand-in per workspace id, so the archive's per-workspace numbering keeps working across runs.
 * Bounded: a dropped stand-in only costs its next run a directory scan.
 */
const standIns = new Map<string, Vfs>()
const MAX_STAND_INS = 64
/**
 * The program's stand-in (`vfs`: the guest API's calls cross as `guest` calls instead, see run()), or the
 * runner's (`archive`: the archive and the modules read ahead, outside the run's journal).
 */
function standInFor(id: number, kind: 'vfs' | 'archive' = 'vfs'): Vfs {
  const key = `${kind}:${id}`
  let vfs = standIns.get(key)
  if (vfs) {
    standIns.delete(key)
    standIns.set(key, vfs) // most recently used last
    return vfs
  }
  const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
  for (const name of HOST_VFS_METHODS) methods[name] = (...args) => ask(currentRun.getStore(), kind, name, withoutSignal(args))
  vfs = methods as unknown as Vfs
  standIns.set(key, vfs)
  if (standIns.size > MAX_STAND_INS) standIns.delete(standIns.keys().next().value!)
  return vfs
}

/** A search's options without its signal, which cannot cross; the host supplies its own for the run. */
function withoutSignal(args: unknown[]): unknown[] {
  const options = args[1]
  if (options === null || typeof options !== 'object' || !('signal' in options)) return args
  const { signal: _, ...rest } = options as Record<string, unknown>
  return [args[0], rest, ...args.slice(2)]
}

function ask(run: number | undefined, kind: CallMessage['kind'], name: string, args: unknown[]): Promise<unknown> {
  const owner = run === undefined ? undefined : running.get(run)
  if (run === undefined || !owner) return Promise.reject(rebuild({ name: 'Error', message: 'the run has ended' }))
  const call = ++nextCall
  return new Promise((resolve, reject) => {
    calls.set(call, { resolve, reject })
    owner.calls.add(call)
    send({ type: 'call', run, call, kind, name, args })
  })
}

function send(message: FromWorker): void {
  port.postMessage(message)
}

/** A host error as the bridge expects one: name, message and the workspace code survive. */
function rebuild(error: WireError): Error {
  const e = new Error(error.message)
  e.name = error.name
  if (error.code !== undefined) (e as Error & { code?: string }).code = error.code
  return e
}

function answer(message: AnswerMessage): void {
  const waiting = calls.get(message.call)
  if (!waiting) return
  calls.delete(message.call)
  for (const { calls: owned } of running.values()) owned.delete(message.call)
  if (message.ok) waiting.resolve(message.value)
  else waiting.reject(rebuild(message.error))
}

async function run(message: RunMessage): Promise<void> {
  const controller = new AbortController()
  const own = { controller, calls: new Set<number>() }
  running.set(message.run, own)
  const tools: Record<string, RunJsToolFunction> = {}
  for (const id of message.tools) {
    // The host validates the input, calls the tool and sends back its JSON ('' for undefined).
    tools[id] = async input => {
      const json = (await ask(message.run, 'tool', id, [input])) as string
      return json === '' ? undefined : JSON.parse(json)
    }
  }
  try {
    const env = runnerEnv({
      vfs: message.vfs === undefined ? undefined : standInFor(message.vfs),
      tools,
      limits: message.limits,
      archiveDir: message.archiveDir,
      typescript: message.typescript ? undefined : false,
      imports: message.imports,
      pool: poolFor(message.limits.memoryBytes),
    })
    // The guest's vfs calls cross as they are (`vfs.write` and its arguments): the host does them and
    // journals them under the same names as an in-thread run, so either can resume the other's journal.
    const remote = (name: string, args: unknown[]) => ask(message.run, 'guest', name, args) as Promise<Answer>
    env.elsewhere = { remote, ...(message.clock ? { determinism: replayedClock(message.run, message.clock) } : {}) }
    if (message.vfs !== undefined) env.runnerVfs = standInFor(message.vfs, 'archive')
    // The host queued the run: it gets what is left of its time, and a timeout still names its limit.
    const result = await currentRun.run(message.run, () => runProgram(env, message.code, controller.signal, message.timeLeftMs))
    send({ type: 'done', run: message.run, result })
  } catch (error) {
    send({
      type: 'done',
      run: message.run,
      result: {
        success: false,
        logs: [],
        error: { name: 'InternalError', message: `run_js worker failed: ${(error as Error)?.message ?? String(error)}` },
      },
    })
  } finally {
    running.delete(message.run)
    // Answers still to come (a tool that never returns) are for nobody now.
    for (const call of own.calls) calls.delete(call)
  }
}

/** A journaled run's clock: the recorded readings first, then this thread's; every reading is reported, in order with the calls. */
function replayedClock(
  run: number,
  { seed, times }: NonNullable<RunMessage['clock']>,
): NonNullable<NonNullable<RunEnv['elsewhere']>['determinism']> {
  let next = 0
  return {
    seed,
    now() {
      const time = next < times.length ? times[next] : Date.now()
      next++
      send({ type: 'clock', run, time })
      return time
    },
  }
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'run':
      void run(message)
      return
    case 'answer':
      return answer(message)
    case 'quickjs':
      return receiveQuickJs(message)
    case 'abort': {
      const reason = message.reason === undefined || typeof message.reason === 'string' ? message.reason : rebuild(message.reason)
      running.get(message.run)?.controller.abort(reason)
      return
    }
  }
})

// Load QuickJS and make one instance before saying ready, so a run's deadline never pays for it.
void createRunner({ pool: poolFor(DEFAULT_LIMITS.memoryBytes), typescript: false })
  .run('return 1')
  .finally(() => send({ type: 'ready' }))
