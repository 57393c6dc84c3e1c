import { readExecution, type ExecutionRecord } from 'agent-vfs/agent'
import { executionBranchTools, executionChangeTools } from './change-points.js'
import { executionActor } from '../records/actors.js'
import type { ExecutionDelta, LanguageModel, ToolSet } from 'agent-vfs/agent'
import type { ExecutionSetup, SessionRecord } from '../types.js'
import { resumeTask, runTask } from 'agent-vfs/agent'
import type { RunVfs, VersionedVfs } from 'agent-vfs'
import type { HostContext, SessionMeta } from '../context.js'
import { openMeta } from '../open-session.js'
import { readFacts } from './facts.js'
import { catchUpLog } from './log-catch-up.js'
import { acquireLease, releaseLease } from '../records/leases.js'
import { decide, shownStatus, type Decision, type NextStep } from '../state.js'
import { segmentOf } from '../storage.js'
import { budgetOptions, recordSessionUsage } from './budgets.js'
import { storedBytes } from '../records/usage.js'
import { applyProposal, openProposal, settleProposal } from './proposals.js'

/** A step that does something. */
type Step = Exclude<NextStep, { kind: 'none' }>

interface ActiveRun {
  controller: AbortController
  executionId: string
}

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
      const renew = setInterval(
        () => {
          void this.renew(sessionId).then(
            held => {
              if (!held) {
                lost = true
                this.active.get(sessionId)?.controller.abort()
              }
            },
            () => undefined,
          )
        },
        Math.max(50, leaseMs / 3),
      )
      try {
        // Events a dead host journaled but never logged go to the log before anything else happens.
        await this.workspace(sessionId)
          .then(async ws => (await ws.refresh(), catchUpLog(this.ctx, sessionId, ws)))
          .catch(() => undefined)
        for (;;) {
          this.again.delete(sessionId)
          if (this.stopped || lost) break
          const { step, meta } = await this.decision(sessionId)
          if (step.kind === 'none') break
          try {
            await this.run(sessionId, step, meta!)
          } catch (error) {
            // A start that failed before its execution began (the profile's setup threw) waits for the next
            // kick as idle: shown running, the Worker's alarm and lazy recovery would retry it without end.
            if (step.kind === 'start') await this.settleStatus(sessionId, { stalled: true }).catch(() => undefined)
            throw error
          }
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
      // The work entry goes only if nothing was marked after we looked (see SessionStorage.clearWork).
      const marked = await this.ctx.storage.workVersion(sessionId)
      if (!(await this.next(sessionId))) await this.ctx.storage.clearWork(sessionId, marked)
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
    const { step } = await this.decision(sessionId)
    return step.kind === 'none' ? undefined : step
  }

  /**
   * The state machine's decision on what is stored now (a missing session: nothing, closed), with
   * the meta it was decided on: the step it gives carries on from that read.
   */
  async decision(sessionId: string): Promise<Decision & { meta?: SessionMeta }> {
    const ws = await this.workspace(sessionId)
    await ws.refresh()
    const meta = await this.ctx.meta(sessionId)
    const facts = meta && (await readFacts(this.ctx, sessionId, ws, meta))
    return facts ? { ...decide(facts), meta } : { row: 'gone', step: { kind: 'none' }, status: 'closed' }
  }

  private workspace(sessionId: string): Promise<RunVfs> {
    return this.ctx.workspaces.view(sessionId)
  }

  /** Carries out `step`, decided on `decided` (the meta read for it). */
  private async run(sessionId: string, step: Step, decided: SessionMeta): Promise<void> {
    const { ctx } = this
    // A fork its host did not finish is finished first (openMeta); any other session runs on what was decided.
    const meta = decided.fork && !decided.fork.done ? await openMeta(ctx, sessionId) : decided
    if (step.kind === 'apply') return this.applyProposal(sessionId, step.executionId, meta)
    const profile = ctx.settings.agents[meta.record.profile]
    const ws = await this.workspace(sessionId)
    const box = ctx.box(sessionId)
    const { executionId } = step
    let instructions: string
    let index: number
    if (step.kind === 'start') {
      // The message becomes the task: delivered (once, atomically) before the execution exists.
      await box.deliver(executionId, q => q.filter(m => m.n === step.message.n))
      instructions = step.message.text
      index = Number(executionId.slice(1))
    } else {
      const record = (await readExecution(ws, executionId)) as ExecutionRecord
      instructions = record.instructions
      index = Number(executionId.slice(1))
      // Resuming an interrupted execution uses up the abort that stopped it and the request that
      // resumes it. A run continued after a crash keeps an acknowledged abort: it ends interrupted.
      if (step.spend) await ctx.storage.spendRequests(sessionId)
      if (step.deliver) await this.deliverSteers(sessionId, executionId, 'any')
    }
    let setup
    try {
      if (!profile) throw new Error(`the host has no agent profile "${meta.record.profile}" any more`)
      setup = await profile.setup({ index, instructions, sessionId, owner: meta.record.owner })
    } catch (error) {
      // Visible to observers; the step is retried on the next kick (a message, an answer, recovery).
      await ctx.emit(sessionId, {
        type: 'error',
        code: 'profile-error',
        message: error instanceof Error ? error.message : String(error),
        executionId,
        executionSeq: 0,
      } as never)
      throw error
    }
    const controller = new AbortController()
    if (step.kind === 'resume' && step.aborted) controller.abort()
    this.active.set(sessionId, { controller, executionId })
    await ctx.storage.markWork({ sessionId, owner: meta.record.owner, reason: 'run', executionId })
    // One write: the status, and the count of executions this one raises.
    await ctx.setStatus(sessionId, 'running', executionId, { known: meta, executions: index })
    const appends: Promise<unknown>[] = []
    const actor = executionActor(executionId)
    // `propose`: its files go to a branch a person reviews when it ends (proposals.ts).
    const proposing = setup.writes === 'propose'
    const base = await ctx.workspaces.base(sessionId)
    const proposal = proposing ? await openProposal(base, executionId) : undefined
    const tools = await this.toolsOf(setup, sessionId, executionId, proposal ?? base)
    const options = {
      // Its writes carry the execution in the workspace's history (what its diff and revert select).
      vfs: proposal ? await ctx.workspaces.proposalViewAs(sessionId, proposal, actor) : await ctx.workspaces.viewAs(sessionId, actor),
      model: this.guarded(setup.model, sessionId),
      ...(setup.contract ? { contract: setup.contract } : {}),
      ...(setup.policy ? { policy: setup.policy } : {}),
      ...(setup.runJs ? { runJs: setup.runJs } : {}),
      ...(setup.bash ? { bash: setup.bash } : {}),
      ...(Object.keys(tools).length > 0 ? { tools } : {}),
      ...(setup.limits ? { limits: setup.limits } : {}),
      ...budgetOptions(ctx, setup.budget, meta.record.owner, sessionId, executionId, ws),
      signal: controller.signal,
      onDelta: (d: ExecutionDelta) => ctx.live.publish(sessionId, d),
      onEvent: (e: { seq: number; at: number; executionId: string; type: string; streamId?: string }) => {
        // The durable text of a streamed call replaces its live text from now on.
        if (e.streamId !== undefined) ctx.live.end(sessionId, e.streamId)
        const { seq, at: _at, ...body } = e
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an execution event's body, re-tagged as a session event
        appends.push(ctx.emit(sessionId, { ...(body as any), executionSeq: seq }).catch(() => undefined))
      },
      steering: async () => {
        await this.deliverSteers(sessionId, executionId, 'steer')
        const all = await box.list()
        return all
          .filter(m => m.state === 'delivered' && m.executionId === executionId && !(step.kind === 'start' && m.n === step.message.n))
          .map(m => m.text)
      },
    }
    try {
      if (step.kind === 'start') await runTask({ ...options, instructions })
      else await resumeTask({ ...options, executionId })
    } catch (error) {
      appends.push(
        ctx
          .emit(sessionId, {
            type: 'error',
            code: 'host-error',
            message: error instanceof Error ? error.message : String(error),
            executionId,
            executionSeq: 0,
            // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same body, built by hand
          } as any)
          .catch(() => undefined),
      )
    } finally {
      this.active.delete(sessionId)
      ctx.live.endExecution(sessionId, executionId)
      if (proposing) await settleProposal(await ctx.workspaces.base(sessionId), executionId).catch(() => undefined)
      await Promise.all([...appends, ctx.fileEvents.settled(sessionId)])
      // What the execution wrote counts against the owner's byte quota from now on.
      await ctx.recordBytes(meta.record.owner, sessionId, storedBytes(ws.usage())).catch(() => undefined)
      // And what it spent counts against the owner's budget.
      await recordSessionUsage(ctx, meta.record.owner, sessionId, ws).catch(() => undefined)
    }
  }

  /** The profile's tools, and the change and attempt tools it asks for over `files` (where the execution's files live). */
  private async toolsOf(setup: ExecutionSetup, sessionId: string, executionId: string, files: VersionedVfs): Promise<ToolSet> {
    return {
      ...setup.tools,
      ...(setup.changeTools ? await executionChangeTools(this.ctx, sessionId, executionId) : {}),
      ...(setup.branchTools ? executionBranchTools(files, executionActor(executionId)) : {}),
    }
  }

  /** Finishes a proposal decision a host stored but did not carry out (it crashed in between). */
  private async applyProposal(sessionId: string, executionId: string, meta: SessionMeta): Promise<void> {
    const base = await this.ctx.workspaces.base(sessionId)
    const outcome = await applyProposal(base, executionId)
    await this.ctx.fileEvents.settled(sessionId)
    if (outcome.status === 'landed')
      await this.ctx.recordBytes(meta.record.owner, sessionId, storedBytes(base.usage())).catch(() => undefined)
  }

  /** Delivers queued messages (steers only, or any) to an execution and logs each delivery. */
  private async deliverSteers(sessionId: string, executionId: string, which: 'steer' | 'any'): Promise<void> {
    const delivered = await this.ctx.box(sessionId).deliver(executionId, q => q.filter(m => which === 'any' || m.mode === 'steer'))
    for (const m of delivered) await this.ctx.emit(sessionId, { type: 'steer-delivered', n: m.n, executionId })
  }

  /** The model, checking for a durable abort before every call (an abort from another process is honoured here at the latest). */
  private guarded(model: LanguageModel, sessionId: string): LanguageModel {
    const before = async (options: { abortSignal?: AbortSignal }) => {
      await this.checkAbort(sessionId)
      options.abortSignal?.throwIfAborted()
    }
    const doStream = model.doStream
    return {
      specificationVersion: model.specificationVersion,
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: model.supportedUrls,
      doGenerate: async options => (await before(options), model.doGenerate(options)),
      ...(typeof doStream === 'function' ? { doStream: async options => (await before(options), doStream.call(model, options)) } : {}),
    }
  }

  /**
   * Stores the status (and the execution the session is on) that the state machine gives what is
   * stored now ({@link shownStatus}). The record is read before the facts and written only if it is
   * still at the version read, else read again: a settle on facts older than another writer's never
   * overwrites what that writer stored. `touch` (a request's acknowledgement) writes the record even
   * when nothing changes, for the same reason. `refresh` reads the workspace from the store first
   * (another process may run the session) unless this host runs it. `stalled`: a start this host
   * could not make shows as idle (it is tried again on the next message, answer or recovery).
   * `meta`: the meta a request read when it began (before what it stored), the first attempt's
   * record, written on without reading it again. Resolves to the record written (undefined: none).
   */
  async settleStatus(
    sessionId: string,
    options: { touch?: boolean; refresh?: boolean; stalled?: boolean; meta?: SessionMeta } = {},
  ): Promise<SessionRecord | undefined> {
    let known = options.meta
    for (let attempt = 0; attempt < 50; attempt++) {
      const meta = known ?? (await this.ctx.meta(sessionId))
      known = undefined
      if (!meta) return undefined
      const ws = await this.workspace(sessionId)
      if (options.refresh && !this.active.has(sessionId)) await ws.refresh()
      const facts = await readFacts(this.ctx, sessionId, ws, meta)
      if (!facts) return undefined
      const stalled = options.stalled === true && decide(facts).step.kind === 'start'
      const { status, executionId } = stalled ? { status: 'idle' as const, executionId: facts.last?.id } : shownStatus(facts)
      const when = { version: meta.version, touch: options.touch ?? false, known: meta }
      const settled = await this.ctx.setStatus(sessionId, status, executionId, when)
      if (settled) return settled === true ? undefined : settled
    }
    return undefined
  }

  /** Removes every scope of a deleted session that a late write may have brought back. */
  private async purge(sessionId: string): Promise<void> {
    const { storage } = this.ctx
    // The notices of the run's last commits go in the log before the log goes.
    await this.ctx.fileEvents.settled(sessionId)
    const log = this.ctx.log(sessionId)
    const last = Math.max(log.knownLast, await log.lastSeq())
    await storage.deleteSegments(sessionId, 0, last > 0 ? segmentOf(last) : 0)
    await storage.deleteMessages(sessionId)
    await this.ctx.workspaces.remove(sessionId)
    await storage.dropWork(sessionId)
    this.ctx.forget(sessionId)
  }
}
