import { listExecutionIds, readExecution, type ExecutionRecord } from 'agent-vfs/agent'
import type { LanguageModel } from 'agent-vfs/agent'
import { readPending } from 'agent-vfs/agent'
import { resumeTask, runTask } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import { ABORT_PATH, RESUME_PATH, type HostContext } from './context.js'
import { acquireLease, releaseLease } from './leases.js'
import { deleteRecord, putJson, updateRecords, versionOf } from './records.js'
import { scopeNames, segmentOf } from './scopes.js'
import type { SessionMessage, SessionStatus } from './types.js'

/** What a session should do next, decided from durable state only. */
type Step =
  | { kind: 'start'; message: SessionMessage; executionId: string }
  | { kind: 'resume'; executionId: string; deliver: boolean }

interface ActiveRun {
  controller: AbortController
  executionId: string
}

const executionIdOf = (n: number) => `e${String(n).padStart(4, '0')}`

/**
 * Runs a session's executions in this process while it holds the session's lease: starts one per
 * queued message, resumes answered, crashed or interrupted-and-resumed ones, and stops when the
 * session waits for a person or has nothing to do. Only durable state decides the next step, so a
 * host that takes over an expired lease continues exactly where the last one stopped.
 */
export class SessionDriver {
  private readonly loops = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  readonly active = new Map<string, ActiveRun>()
  private stopped = false

  constructor(private readonly ctx: HostContext) {}

  /** Makes sure someone works on the session: this host if it can take the lease. */
  kick(sessionId: string): Promise<void> {
    if (this.stopped) return Promise.resolve()
    const running = this.loops.get(sessionId)
    if (running) {
      this.again.add(sessionId)
      return running
    }
    const loop = this.loop(sessionId)
      .catch(() => {
        // A failed loop leaves durable state as it was; recovery or the next kick continues.
      })
      .finally(() => {
        if (this.loops.get(sessionId) === loop) this.loops.delete(sessionId)
      })
    this.loops.set(sessionId, loop)
    return loop
  }

  /** Resolves when no loop of this host works on the session. */
  async settled(sessionId: string): Promise<void> {
    while (this.loops.has(sessionId)) await this.loops.get(sessionId)
  }

  /** Stops taking work; loops in progress end after their current execution. */
  stop(): void {
    this.stopped = true
  }

  private async loop(sessionId: string): Promise<void> {
    const { store, namespace, hostId, leaseMs } = this.ctx.settings
    for (;;) {
      if (!(await acquireLease(store, namespace, sessionId, hostId, leaseMs, this.ctx.settings.exclusive))) return
      let lost = false
      const renew = setInterval(() => {
        void this.renew(sessionId).then((held) => {
          if (!held) {
            lost = true
            this.active.get(sessionId)?.controller.abort()
          }
        }, () => undefined)
      }, Math.max(50, leaseMs / 3))
      try {
        for (;;) {
          this.again.delete(sessionId)
          if (this.stopped || lost) break
          const step = await this.next(sessionId)
          if (!step) break
          await this.run(sessionId, step)
        }
        await this.settleStatus(sessionId)
      } finally {
        clearInterval(renew)
      }
      if (this.stopped) return // a stopped host keeps its lease until it expires, as a crashed one would
      // Deleted or being deleted (by another host) while we ran it: what our run wrote after the
      // delete's removals goes too. Every write of our run is durable by now, and the delete marks
      // the meta scope before it removes anything, so a write this check does not cover came
      // before the mark and so before the removals.
      const current = await this.ctx.meta(sessionId)
      if (!current || current.deleting) return this.purge(sessionId)
      if (!(await this.next(sessionId))) await this.unregister(sessionId)
      await releaseLease(store, namespace, sessionId, hostId)
      // Work that arrived while we held the lease (another host could not take it): do it now.
      if (!this.again.has(sessionId) && !(await this.next(sessionId))) return
    }
  }

  /** Renews the lease and honours a durable abort request from any process. */
  private async renew(sessionId: string): Promise<boolean> {
    const { store, namespace, hostId, leaseMs } = this.ctx.settings
    if (this.stopped) return true
    // Never a take-over here: if another holder has it now, this run is the stale one.
    const held = await acquireLease(store, namespace, sessionId, hostId, leaseMs)
    await this.checkAbort(sessionId)
    return held
  }

  /** Aborts the local run if an abort request for its execution is stored. */
  async checkAbort(sessionId: string): Promise<void> {
    const run = this.active.get(sessionId)
    if (!run || run.controller.signal.aborted) return
    const meta = await this.ctx.meta(sessionId)
    if (meta?.abort?.executionId === run.executionId || meta?.record.status === 'closed' || !meta || meta.deleting) run.controller.abort()
  }

  /** The next step from durable state, or undefined when the session waits or is done. */
  async next(sessionId: string): Promise<Step | undefined> {
    const meta = await this.ctx.meta(sessionId)
    if (!meta || meta.record.status === 'closed' || meta.deleting) return undefined
    const ws = await this.workspace(sessionId)
    await ws.refresh()
    const ids = await listExecutionIds(ws)
    const lastId = ids[ids.length - 1]
    const last = lastId ? await readExecution(ws, lastId) : undefined
    const messages = await this.ctx.box(sessionId).list()
    const queued = messages.filter((m) => m.state === 'queued')
    if (last?.status === 'running') return { kind: 'resume', executionId: last.id, deliver: false }
    if (last?.status === 'suspended') {
      const pending = last.pendingId ? await readPending(ws, last.pendingId) : undefined
      return pending?.answer ? { kind: 'resume', executionId: last.id, deliver: false } : undefined
    }
    if (last?.status === 'interrupted') {
      if (queued.length > 0) return { kind: 'resume', executionId: last.id, deliver: true }
      if (meta.resume?.executionId === last.id) return { kind: 'resume', executionId: last.id, deliver: false }
      return undefined
    }
    const nextId = executionIdOf(lastId ? Number(lastId.slice(1)) + 1 : 1)
    // A message delivered as the task of an execution that was never created (a crash in between).
    const orphan = messages.find((m) => m.state === 'delivered' && m.executionId === nextId && m.mode !== 'steer')
    if (orphan) return { kind: 'start', message: orphan, executionId: nextId }
    if (queued.length > 0) return { kind: 'start', message: queued[0], executionId: nextId }
    return undefined
  }

  private workspace(sessionId: string): Promise<RunVfs> {
    return this.ctx.workspaces.view(sessionId)
  }

  private async run(sessionId: string, step: Step): Promise<void> {
    const { ctx } = this
    const meta = await ctx.require(sessionId)
    const profile = ctx.settings.agents[meta.record.profile]
    const ws = await this.workspace(sessionId)
    const box = ctx.box(sessionId)
    const { executionId } = step
    let instructions: string
    let index: number
    if (step.kind === 'start') {
      // The message becomes the task: delivered (once, atomically) before the execution exists.
      await box.deliver(executionId, (q) => q.filter((m) => m.n === step.message.n))
      instructions = step.message.text
      index = Number(executionId.slice(1))
    } else {
      const record = (await readExecution(ws, executionId)) as ExecutionRecord
      instructions = record.instructions
      index = Number(executionId.slice(1))
      // A resume clears the abort that stopped it and the request that resumes it.
      await updateRecords(ctx.store, ctx.namespace, scopeNames.meta(sessionId), (records) => ({
        ops: [ABORT_PATH, RESUME_PATH].filter((p) => records.has(p)).map((p) => deleteRecord(p, versionOf(records, p))),
        value: undefined,
      }))
      if (step.deliver) await this.deliverSteers(sessionId, executionId, 'any')
    }
    let setup
    try {
      if (!profile) throw new Error(`the host has no agent profile "${meta.record.profile}" any more`)
      setup = await profile.setup({ index, instructions, sessionId })
    } catch (error) {
      // Visible to observers; the step is retried on the next kick (a message, an answer, recovery).
      await ctx.emit(sessionId, { type: 'error', code: 'profile-error', message: error instanceof Error ? error.message : String(error), executionId, executionSeq: 0 } as never)
      throw error
    }
    const controller = new AbortController()
    this.active.set(sessionId, { controller, executionId })
    await updateRecords(ctx.store, ctx.namespace, scopeNames.running, (records) => ({
      ops: [putJson(`/${sessionId}.json`, { sessionId, owner: meta.record.owner, executionId }, versionOf(records, `/${sessionId}.json`))],
      value: undefined,
    }))
    await ctx.setStatus(sessionId, 'running', executionId)
    await ctx.update(sessionId, (r) => ({ ...r, executions: Math.max(r.executions, index) }))
    const appends: Promise<unknown>[] = []
    const options = {
      vfs: ws,
      model: this.guarded(setup.model, sessionId),
      ...(setup.contract ? { contract: setup.contract } : {}),
      ...(setup.policy ? { policy: setup.policy } : {}),
      ...(setup.runJs ? { runJs: setup.runJs } : {}),
      ...(setup.tools ? { tools: setup.tools } : {}),
      ...(setup.limits ? { limits: setup.limits } : {}),
      signal: controller.signal,
      onEvent: (e: { seq: number; at: number; executionId: string; type: string }) => {
        const { seq, at: _at, ...body } = e
        appends.push(ctx.emit(sessionId, { ...(body as any), executionSeq: seq }).catch(() => undefined))
      },
      steering: async () => {
        await this.deliverSteers(sessionId, executionId, 'steer')
        const all = await box.list()
        return all.filter((m) => m.state === 'delivered' && m.executionId === executionId && !(step.kind === 'start' && m.n === step.message.n)).map((m) => m.text)
      },
    }
    try {
      if (step.kind === 'start') await runTask({ ...options, instructions })
      else await resumeTask({ ...options, executionId })
    } catch (error) {
      appends.push(ctx.emit(sessionId, { type: 'error', code: 'host-error', message: error instanceof Error ? error.message : String(error), executionId, executionSeq: 0 } as any).catch(() => undefined))
    } finally {
      this.active.delete(sessionId)
      await Promise.all(appends)
      // What the execution wrote counts against the owner's byte quota from now on.
      await ctx.recordBytes(meta.record.owner, sessionId, ws.usage().bytes).catch(() => undefined)
    }
  }

  /** Delivers queued messages (steers only, or any) to an execution and logs each delivery. */
  private async deliverSteers(sessionId: string, executionId: string, which: 'steer' | 'any'): Promise<void> {
    const delivered = await this.ctx.box(sessionId).deliver(executionId, (q) => q.filter((m) => which === 'any' || m.mode === 'steer'))
    for (const m of delivered) await this.ctx.emit(sessionId, { type: 'steer-delivered', n: m.n, executionId })
  }

  /** The model, checking for a durable abort before every call (an abort from another process is honoured here at the latest). */
  private guarded(model: LanguageModel, sessionId: string): LanguageModel {
    return {
      specificationVersion: model.specificationVersion,
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: model.supportedUrls,
      doGenerate: async (options) => {
        await this.checkAbort(sessionId)
        options.abortSignal?.throwIfAborted()
        return model.doGenerate(options)
      },
    }
  }

  /** Sets the status from the last execution. */
  async settleStatus(sessionId: string): Promise<void> {
    const ws = await this.workspace(sessionId)
    const ids = await listExecutionIds(ws)
    const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
    let status: SessionStatus = 'idle'
    if (last?.status === 'running') status = 'running'
    if (last?.status === 'suspended' && last.pendingId) {
      const pending = await readPending(ws, last.pendingId)
      if (pending && !pending.answer) status = pending.kind === 'question' ? 'waiting_input' : 'waiting_approval'
    }
    await this.ctx.setStatus(sessionId, status, last?.id)
  }

  /** Removes every scope of a deleted session that a late write may have brought back. */
  private async purge(sessionId: string): Promise<void> {
    const { store, namespace } = this.ctx
    const log = this.ctx.log(sessionId)
    const last = Math.max(log.knownLast, await log.lastSeq())
    for (let s = 0; s <= (last > 0 ? segmentOf(last) : 0); s++) await store.deleteScope(namespace, scopeNames.events(sessionId, s))
    await store.deleteScope(namespace, scopeNames.messages(sessionId))
    await this.ctx.workspaces.remove(sessionId)
    await this.unregister(sessionId)
    this.ctx.forget(sessionId)
  }

  private async unregister(sessionId: string): Promise<void> {
    await updateRecords(this.ctx.store, this.ctx.namespace, scopeNames.running, (records) => ({
      ops: records.has(`/${sessionId}.json`) ? [deleteRecord(`/${sessionId}.json`, versionOf(records, `/${sessionId}.json`))] : [],
      value: undefined,
    }))
  }
}
