import { availableParallelism } from 'node:os'
import { Worker, type ResourceLimits } from 'node:worker_threads'
// The core by name only (one VfsError, one queue implementation): this file is the host side.
import type { RunJsError, RunJsExecutor, RunJsJob, RunJsResult } from 'agent-vfs'
import { DEFAULT_MAX_QUEUED, noteQueueWait, resolveRunJsCount, RunQueue, runJsAbortError, runQueued } from 'agent-vfs/internal'
import type { AbortMessage, FromWorker, RunMessage, ToWorker } from './protocol.js'
import { sendQuickJs } from './quickjs-module.js'
import workerScript from './worker-script.js'

/** Options of {@link workerThreads}. */
export interface WorkerThreadsOptions {
  /** Worker threads, each running one program at a time (default: the machine's parallelism, 1 to 8). */
  size?: number
  /** Runs that may wait for a free thread, across every runner using the pool (default 1,000). */
  maxQueued?: number
  /**
   * Threads one tenant (`createRunJs({ tenant })`, e.g. an owner) may hold at once (default: half the
   * pool, at least 1). Waiting tenants take turns as threads free up, so one tenant's busy programs
   * cannot take every thread or starve the others.
   */
  perTenant?: number
  /**
   * How long a thread may take to stop after its run's deadline passed or its signal aborted before it
   * is terminated and replaced (default 500 ms). Deadlines are enforced inside the thread first (the
   * interrupt handler); this is the backstop, and what stops a synchronous loop on abort.
   */
  graceMs?: number
  /**
   * The worker script. Default: the script the package carries inside this module (started with
   * `eval: true`, so a one-file bundle of your app needs nothing beside it). Set it to start threads
   * from another file, e.g. from source in development.
   */
  workerUrl?: string | URL
  /** V8 heap limits of each thread (QuickJS memory is capped per run by `limits.memoryBytes` anyway). */
  resourceLimits?: ResourceLimits
  /**
   * The niceness of each thread on Linux (default 10; 0 leaves it as the host's): a program's CPU then
   * yields to the host thread when the machine is busy, so requests are answered while busy loops run
   * (on a loaded 2-core machine the host thread otherwise waits for a core behind the pool's threads).
   * Linux sets it per thread; elsewhere it would lower the whole process, so it is not set there.
   */
  nice?: number
}

/** What a pool is doing right now. */
export interface WorkerThreadsStats {
  /** Threads alive (starting, busy or idle). */
  threads: number
  /** Threads running a program. */
  busy: number
  /** Runs waiting for a thread. */
  waiting: number
  /** Threads terminated because they did not stop in time or failed, and replaced. */
  replaced: number
}

/** A pool of worker threads to pass as `executor` to `createRunJs`; share one per process. */
export interface WorkerThreadsExecutor extends RunJsExecutor {
  /** Starts every thread now (they otherwise start on first use); resolves when all are ready. */
  warm(): Promise<void>
  stats(): WorkerThreadsStats
  /** Terminates every thread; runs in progress end with `InternalError`, later runs fail at once. */
  close(): Promise<void>
}

const DEFAULT_GRACE_MS = 500
const DEFAULT_NICE = 10

/**
 * Runs run_js programs in a pool of Node worker threads, so one program's CPU (a busy loop, a memory
 * bomb, a catastrophic regex) never blocks the host's event loop. The workspace and the tools stay in
 * the host thread: the program's file operations and tool calls cross over a message port as data,
 * with the same semantics as in-thread runs, and results have the same shape.
 *
 * ```ts
 * import { workerThreads } from 'agent-vfs/run-js/node'
 * const threads = workerThreads({ size: 4 })
 * const runJs = createRunJs({ vfs, executor: threads })
 * ```
 */
export function workerThreads(options: WorkerThreadsOptions = {}): WorkerThreadsExecutor {
  return new WorkerPool(options)
}

/** One worker thread and the run it is executing, if any. */
interface Thread {
  readonly worker: Worker
  /** Settles when the thread said ready (true) or died first (false). */
  readonly ready: Promise<boolean>
  current?: ActiveRun
  dead: boolean
  /** It said ready once (so its script and workerUrl work). */
  started?: boolean
  /** Why it died, for the runs that waited for it to start. */
  failure?: string
}

interface ActiveRun {
  id: number
  /** Answers the thread's file operations and tool calls (the runner's, from the job). */
  call: RunJsJob['call']
  clock: RunJsJob['clock']
  finish(result: RunJsResult): void
}

class WorkerPool implements WorkerThreadsExecutor {
  private readonly size: number
  private readonly graceMs: number
  private readonly slots: RunQueue
  private readonly threads = new Set<Thread>()
  /** Threads nobody is using, ready or still starting. */
  private readonly available: Thread[] = []
  private readonly vfsIds = new WeakMap<object, number>()
  private nextVfsId = 0
  private nextRunId = 0
  private replaced = 0
  private closed = false

  constructor(private readonly options: WorkerThreadsOptions) {
    this.size = resolveRunJsCount(options.size, Math.max(1, Math.min(8, availableParallelism())), 'workerThreads size')
    if (this.size === Infinity) throw new RangeError('run_js: workerThreads size must be finite')
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS
    if (!Number.isFinite(this.graceMs) || this.graceMs < 0)
      throw new RangeError(`run_js: workerThreads graceMs must be a non-negative number, got ${String(options.graceMs)}`)
    const perTenant = resolveRunJsCount(options.perTenant, Math.max(1, Math.floor(this.size / 2)), 'workerThreads perTenant')
    this.slots = new RunQueue(
      this.size,
      resolveRunJsCount(options.maxQueued, DEFAULT_MAX_QUEUED, 'workerThreads maxQueued'),
      `a worker thread (pool of ${this.size})`,
      perTenant,
    )
  }

  execute(job: RunJsJob): Promise<RunJsResult> {
    if (this.closed) return Promise.resolve(failed(closedError()))
    return runQueued(
      this.slots,
      job.timeLeftMs,
      job.signal,
      async timeMs => {
        const startedAt = performance.now()
        const thread = await this.takeThread(startedAt + timeMs, job.signal)
        if ('name' in thread) return failed(thread)
        const waited = performance.now() - startedAt
        const left = Math.floor(timeMs - waited)
        if (left <= 0) {
          this.giveBack(thread)
          return failed({
            name: 'TimeoutError',
            message: `run_js timed out after waiting ${Math.round(waited)} ms for a worker thread to start; the program never ran`,
          })
        }
        const result = await this.runOn(thread, job, left)
        noteQueueWait(result.error, waited, 'a worker thread to start')
        return result
      },
      job.tenant,
    )
  }

  async warm(): Promise<void> {
    while (this.threads.size < this.size && !this.closed) this.available.push(this.spawn())
    await Promise.all([...this.threads].map(t => t.ready))
  }

  stats(): WorkerThreadsStats {
    let busy = 0
    for (const t of this.threads) if (t.current) busy++
    return { threads: this.threads.size, busy, waiting: this.slots.waiting, replaced: this.replaced }
  }

  async close(): Promise<void> {
    this.closed = true
    const threads = [...this.threads]
    this.threads.clear()
    this.available.length = 0
    await Promise.all(
      threads.map(t => {
        t.dead = true
        t.current?.finish(failed(closedError()))
        return t.worker.terminate().catch(() => {})
      }),
    )
  }

  /** A thread for a slot holder: an unused one, or a new one (there is always room: one thread per slot). */
  private async takeThread(deadline: number, signal: AbortSignal | undefined): Promise<Thread | RunJsError> {
    if (this.closed) return closedError()
    let thread: Thread
    try {
      thread = this.available.pop() ?? this.spawn()
    } catch (error) {
      return {
        name: 'InternalError',
        message: `run_js: a worker thread could not be created: ${(error as Error)?.message ?? String(error)}`,
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    let onAbort: (() => void) | undefined
    const outcome = await Promise.race([
      thread.ready,
      new Promise<RunJsError>(resolve => {
        timer = setTimeout(
          () =>
            resolve({
              name: 'TimeoutError',
              message: 'run_js timed out waiting for a worker thread to start; the program never ran',
            }),
          Math.max(0, deadline - performance.now()),
        )
        onAbort = () => resolve(runJsAbortError(signal))
        if (signal?.aborted) onAbort()
        else signal?.addEventListener('abort', onAbort, { once: true })
      }),
    ])
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
    if (typeof outcome === 'object') {
      this.giveBack(thread) // it keeps starting, for the next run
      return outcome
    }
    if (outcome && !thread.dead) return thread
    return {
      name: 'InternalError',
      message: `run_js: a worker thread could not start: it ${thread.failure ?? 'died'} (is workerThreads({ workerUrl }) right?)`,
    }
  }

  private giveBack(thread: Thread): void {
    if (thread.dead || this.closed) return
    thread.worker.unref() // an idle pool does not keep the process alive
    this.available.push(thread)
  }

  private spawn(): Thread {
    const { workerUrl, resourceLimits } = this.options
    const settings = { ...(resourceLimits ? { resourceLimits } : {}), workerData: { nice: this.options.nice ?? DEFAULT_NICE } }
    const worker = workerUrl === undefined ? new Worker(workerScript(), { ...settings, eval: true }) : new Worker(workerUrl, settings)
    worker.unref() // only a thread running a program keeps the process alive
    let ready!: (ok: boolean) => void
    const thread: Thread = { worker, ready: new Promise<boolean>(resolve => (ready = resolve)), dead: false }
    this.threads.add(thread)
    sendQuickJs(message => this.post(thread, message))
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready') {
        thread.started = true
        return ready(true)
      }
      const current = thread.current
      if (message.type === 'done') {
        if (current?.id === message.run) current.finish(message.result)
        return
      }
      if (message.type === 'clock') return void (current?.id === message.run && current.clock?.read(message.time))
      if (message.type === 'call') {
        // A call of a run that has ended (or of no run) is refused; nothing touches the workspace.
        if (current?.id !== message.run)
          return this.post(thread, {
            type: 'answer',
            call: message.call,
            ok: false,
            error: { name: 'Error', message: 'the run has ended' },
          })
        void current
          .call(message.kind, message.name, message.args)
          .then(answer => this.post(thread, { type: 'answer', call: message.call, ...answer }))
      }
    })
    const died = (why: string) => {
      thread.failure ??= why
      ready(false)
      if (thread.dead) return
      this.retire(thread)
      thread.current?.finish(failed({ name: 'InternalError', message: `run_js: the worker thread ${why}; it was replaced` }))
    }
    worker.on('error', (error: Error) => died(`failed (${error?.message ?? String(error)})`))
    worker.on('exit', (code: number) => died(`exited with code ${code}`))
    worker.on('messageerror', () => died('sent a message that could not be read'))
    return thread
  }

  /** Sends to a thread; an answer that cannot be cloned is sent as an error instead. */
  private post(thread: Thread, message: ToWorker): void {
    if (thread.dead) return
    try {
      thread.worker.postMessage(message)
    } catch (error) {
      if (message.type !== 'answer') throw error
      thread.worker.postMessage({
        type: 'answer',
        call: message.call,
        ok: false,
        error: {
          name: 'DataCloneError',
          message: `the host's answer cannot cross to the worker thread: ${(error as Error).message}`,
        },
      })
    }
  }

  private runOn(thread: Thread, job: RunJsJob, timeMs: number): Promise<RunJsResult> {
    const id = ++this.nextRunId
    const signal = job.signal
    return new Promise<RunJsResult>(resolve => {
      let backstop: ReturnType<typeof setTimeout> | undefined
      let abortBackstop: ReturnType<typeof setTimeout> | undefined
      const onAbort = () => {
        this.post(thread, { type: 'abort', run: id, reason: wireReason(signal?.reason) } satisfies AbortMessage)
        // A synchronous loop in the thread cannot read the message: stop it from here.
        abortBackstop = setTimeout(() => this.kill(thread, runJsAbortError(signal)), this.graceMs)
      }
      thread.current = {
        id,
        call: job.call,
        clock: job.clock,
        finish: result => {
          if (thread.current?.id !== id) return
          thread.current = undefined
          clearTimeout(backstop)
          clearTimeout(abortBackstop)
          signal?.removeEventListener('abort', onAbort)
          this.giveBack(thread)
          resolve(result)
        },
      }
      thread.worker.ref()
      const message: RunMessage = {
        type: 'run',
        run: id,
        code: job.code,
        limits: { ...job.limits },
        timeLeftMs: timeMs,
        vfs: job.vfs ? this.vfsId(job.vfs) : undefined,
        tools: [...job.toolIds],
        archiveDir: job.archiveDir ?? false,
        typescript: job.typescript,
        ...(job.imports ? { imports: job.imports } : {}),
        ...(job.clock ? { clock: { seed: job.clock.seed, times: [...job.clock.times] } } : {}),
      }
      this.post(thread, message)
      backstop = setTimeout(
        () =>
          this.kill(thread, {
            name: 'TimeoutError',
            message: `run_js timed out after ${job.limits.timeMs} ms (the worker thread did not stop in time and was replaced)`,
          }),
        timeMs + this.graceMs,
      )
      if (signal?.aborted) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Terminates a thread that did not stop in time; its run ends with `error` (its logs are lost with it). */
  private kill(thread: Thread, error: RunJsError): void {
    const current = thread.current
    this.retire(thread)
    void thread.worker.terminate().catch(() => {})
    current?.finish(failed(error))
  }

  private retire(thread: Thread): void {
    if (thread.dead) return
    thread.dead = true
    this.threads.delete(thread)
    const i = this.available.indexOf(thread)
    if (i >= 0) this.available.splice(i, 1)
    if (this.closed) return
    this.replaced++
    // A started thread is replaced at once (the next program pays no cold start in its time limit); one
    // that never started is not (a wrong workerUrl would respawn for ever).
    if (!thread.started) return
    try {
      this.available.push(this.spawn())
    } catch {
      // the next run spawns one itself and says why it could not
    }
  }

  private vfsId(vfs: object): number {
    let id = this.vfsIds.get(vfs)
    if (id === undefined) this.vfsIds.set(vfs, (id = ++this.nextVfsId))
    return id
  }
}

function failed(error: RunJsError): RunJsResult {
  return { success: false, logs: [], error }
}

function closedError(): RunJsError {
  return { name: 'InternalError', message: 'run_js: the worker pool was closed' }
}

/** An abort reason as it crosses: the worker's run then reports the same message. */
function wireReason(reason: unknown): AbortMessage['reason'] {
  if (typeof reason === 'string') return reason
  if (reason instanceof Error && reason.name !== 'AbortError') return { name: reason.name, message: reason.message }
  return undefined
}
