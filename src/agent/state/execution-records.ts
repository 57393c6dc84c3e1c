import { isVfsError, type Vfs } from 'agent-vfs'
import { EXECUTIONS_DIR } from './paths.js'
import type { ExecutionEvent, ExecutionEventBody, ExecutionEventListener, ExecutionStatus } from './events.js'
import type { Plan } from './plan.js'
import type { SubmissionState } from '../tools/submit-tool.js'
import type { BudgetExceeded } from '../budget/budget.js'
import type { ModelUsage } from '../model/model.js'

/** Tokens used, summed over model calls (each call's usage is on its `model-call` event). */
export type ModelUsageTotals = ModelUsage

/** The durable record of one execution. */
export interface ExecutionRecord {
  id: string
  status: ExecutionStatus
  instructions: string
  hasContract: boolean
  startedAt: number
  endedAt?: number
  usage: ModelUsageTotals
  /** Model calls that answered. */
  modelCalls: number
  /** Model calls started, failed ones included (counted before each call): what a `modelCalls` budget counts. */
  modelCallsStarted?: number
  /** Model call attempts that failed retryably and were tried again (absent: none). */
  modelRetries?: number
  toolCalls: number
  /** Milliseconds run_js programs ran guest code, and bytes tool calls added to the workspace (budgets count them). */
  runJsCpuMs?: number
  bytesWritten?: number
  /** Set while the execution is interrupted because a budget was reached (`error.code` is `budget-exceeded`). */
  budgetExceeded?: BudgetExceeded
  windows: number
  /** Windows opened since the last checkpoint, and consecutive windows without any successful tool call. */
  windowsSinceCheckpoint: number
  idleWindows: number
  /** Consecutive checkpoints whose plan update added no step and changed no status. */
  stalledCheckpoints?: number
  /** Revision of the last checkpoint (0: none yet). */
  checkpoint: number
  submission: SubmissionState
  /** Set while suspended. */
  pendingId?: string
  /**
   * The answered pending action the running window was resumed with, until the next checkpoint: a host
   * that dies before it (kill -9 after an acknowledged answer) leaves it here, and the next resume
   * delivers the answer again instead of starting the window without it (the model would ask again).
   */
  answeredPendingId?: string
  result?: unknown
  summary?: string
  error?: { code: string; message: string }
}

/** A checkpoint: written after each accepted plan update. */
export interface CheckpointRecord {
  executionId: string
  revision: number
  at: number
  window: number
  toolCalls: number
  plan: Plan
}

/**
 * Events a listener hears of only once they are written with the record that says the execution
 * ended. A session host appends what it hears to the session log: told earlier, a crash before the
 * record's write would leave an end in the log for a run the next host continues, and ends again.
 * Written but not yet told when a host dies, they reach the log through its catch-up (catchUpLog).
 */
const TOLD_WHEN_DURABLE = new Set<string>(['result-accepted', 'execution-end'])

/** Keeps one execution's record, events and checkpoints in the workspace. */
export class ExecutionRecorder {
  private seq: number
  private readonly listeners = new Set<ExecutionEventListener>()
  /** Events logged since the last write of the event file. */
  private buffer: string[] = []
  /** Events of the buffer its listeners hear of only once it is written (see {@link TOLD_WHEN_DURABLE}). */
  private held: ExecutionEvent[] = []

  private constructor(
    private readonly vfs: Vfs,
    readonly record: ExecutionRecord,
    seq: number,
  ) {
    this.seq = seq
  }

  /** Directory of this execution. */
  get dir(): string {
    return `${EXECUTIONS_DIR}/${this.record.id}`
  }

  /** Starts a new execution with the next id (`e0001`, `e0002`, …). */
  static async create(vfs: Vfs, instructions: string, hasContract: boolean): Promise<ExecutionRecorder> {
    const ids = await listExecutionIds(vfs)
    const next = ids.length === 0 ? 1 : Number(ids[ids.length - 1].slice(1)) + 1
    const record: ExecutionRecord = {
      id: `e${String(next).padStart(4, '0')}`,
      status: 'running',
      instructions,
      hasContract,
      startedAt: Date.now(),
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      modelCalls: 0,
      toolCalls: 0,
      windows: 0,
      windowsSinceCheckpoint: 0,
      idleWindows: 0,
      checkpoint: 0,
      submission: { attempts: 0 },
    }
    const recorder = new ExecutionRecorder(vfs, record, 0)
    await recorder.save()
    return recorder
  }

  /** Opens a recorded execution; the event sequence continues after the last logged event. */
  static async open(vfs: Vfs, id: string): Promise<ExecutionRecorder | undefined> {
    const record = await readExecution(vfs, id)
    if (!record) return undefined
    let seq = 0
    try {
      seq = (await vfs.readFile(`${EXECUTIONS_DIR}/${id}/events.jsonl`, 'utf8')).split('\n').filter(l => l.trim() !== '').length
    } catch (error) {
      if (!isVfsError(error, 'ENOENT')) throw error
    }
    return new ExecutionRecorder(vfs, record, seq)
  }

  /** Subscribes to this execution's events. */
  subscribe(listener: ExecutionEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Stores the record together with the events logged since the last write, in one group commit.
   * Resolves once both are durable.
   */
  async save(): Promise<void> {
    const events = this.writeEvents()
    const record = this.vfs.writeFile(`${this.dir}/execution.json`, JSON.stringify(this.record, null, 2))
    await Promise.all([events, record])
  }

  /** Makes every logged event durable. */
  async flush(): Promise<void> {
    await this.writeEvents()
  }

  private async writeEvents(): Promise<void> {
    if (this.buffer.length === 0) return
    const text = this.buffer.join('')
    const held = this.held
    this.buffer = []
    this.held = []
    await this.vfs.appendFile(`${this.dir}/events.jsonl`, text)
    for (const event of held) this.tell(event)
  }

  /**
   * Logs an event. Events are buffered and written with the next `save()`, checkpoint or `flush()`,
   * so a burst of events costs no extra commit; after a crash the log ends at the last of those, and
   * numbering continues from there. Listeners hear of an event at once, except of the end's
   * ({@link TOLD_WHEN_DURABLE}) and anything after it, which they hear of once written.
   */
  async emit(body: ExecutionEventBody): Promise<ExecutionEvent> {
    const event = { ...body, executionId: this.record.id, seq: ++this.seq, at: Date.now() } as ExecutionEvent
    this.buffer.push(JSON.stringify(event) + '\n')
    if (this.held.length > 0 || TOLD_WHEN_DURABLE.has(event.type)) this.held.push(event)
    else this.tell(event)
    return event
  }

  private tell(event: ExecutionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // A listener's failure must not change the run.
      }
    }
  }

  /** Where the checkpoint of a plan revision is stored. */
  checkpointPath(revision: number): string {
    return `${this.dir}/checkpoints/r${String(revision).padStart(4, '0')}.json`
  }

  /** Records a checkpoint for an accepted plan revision (its writes are issued before the first await). */
  async checkpoint(plan: Plan): Promise<string> {
    const path = this.checkpointPath(plan.revision)
    const cp: CheckpointRecord = {
      executionId: this.record.id,
      revision: plan.revision,
      at: Date.now(),
      window: this.record.windows,
      toolCalls: this.record.toolCalls,
      plan,
    }
    this.record.checkpoint = plan.revision
    delete this.record.answeredPendingId // the checkpoint holds what the answer led to
    this.record.windowsSinceCheckpoint = 0
    this.record.idleWindows = 0
    // Issued in one tick: the checkpoint, the record and the buffered events share a commit.
    await Promise.all([this.vfs.writeFile(path, JSON.stringify(cp, null, 2)), this.save()])
    return path
  }
}

/** Ids of recorded executions, oldest first. */
export async function listExecutionIds(vfs: Vfs): Promise<string[]> {
  if (!(await vfs.exists(EXECUTIONS_DIR))) return []
  return (await vfs.readdir(EXECUTIONS_DIR)).filter(n => /^e\d{4,}$/.test(n)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
}

/** Reads one execution record. */
export async function readExecution(vfs: Vfs, id: string): Promise<ExecutionRecord | undefined> {
  try {
    return JSON.parse(await vfs.readFile(`${EXECUTIONS_DIR}/${id}/execution.json`, 'utf8')) as ExecutionRecord
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  }
}

/** Reads the logged events of an execution, in order. */
export async function readEvents(vfs: Vfs, id: string): Promise<ExecutionEvent[]> {
  try {
    const text = await vfs.readFile(`${EXECUTIONS_DIR}/${id}/events.jsonl`, 'utf8')
    return text
      .split('\n')
      .filter(l => l.trim() !== '')
      .map(l => JSON.parse(l) as ExecutionEvent)
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return []
    throw error
  }
}
