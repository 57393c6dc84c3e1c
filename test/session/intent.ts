import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import { createSessionHost, type AgentProfile, type SessionEvent, type SessionHost } from '../../src/session/index.js'
import { LEASE_PATH } from '../../src/session/storage.js'
import { beforeCommits, completions, expectContiguous, until, uploadSeason } from './harness.js'

const appendix = scriptAppendixProfile()
const asking = scriptAppendixProfile({ askFirst: true, approveRunJs: true })
const LEASE = 300

/** `base` whose model never answers after `calls` model calls (a host that hangs mid-execution, then dies). */
function hangingAfter(calls: number, base: AgentProfile = appendix, onHang: () => void = () => {}): AgentProfile {
  return {
    async setup(e) {
      const s = await base.setup(e)
      let n = 0
      return {
        ...s,
        model: { ...s.model, doGenerate: o => (++n > calls ? (onHang(), new Promise(() => {})) : s.model.doGenerate(o)) },
      }
    },
  }
}

/** {@link hangingAfter}, with a promise that resolves once the model hangs. */
function hanging(calls: number) {
  let hung!: () => void
  const reached = new Promise<void>(r => (hung = r))
  return { profile: hangingAfter(calls, appendix, () => hung()), reached }
}

/** A profile whose setup never resolves: the host dies after delivering the message, before the execution exists. */
const setupHangs: AgentProfile = { setup: () => new Promise(() => {}) }

/** `store` whose first lease write for `holder` runs after `before` resolves. */
function delayedLease(store: VfsStore, holder: string, before: () => Promise<void>): VfsStore {
  let first = true
  return beforeCommits(store, async (_scope, ops) => {
    const ours = ops.some(
      o => o.op === 'put' && o.path === LEASE_PATH && o.data && JSON.parse(new TextDecoder().decode(o.data)).holder === holder,
    )
    if (ours && first) {
      first = false
      await before()
    }
  })
}

const ns = () => `i${Math.random().toString(36).slice(2)}`

/** After the dead host's lease expired: a new host (and a second, healthy one) recover on their own. */
async function recoverElsewhere(
  store: VfsStore,
  namespace: string,
  id: string,
  agents: Record<string, AgentProfile>,
): Promise<SessionHost> {
  const b = createSessionHost({ store, agents, namespace, leaseMs: LEASE })
  const c = createSessionHost({ store, agents, namespace, leaseMs: LEASE })
  // As a server does, every lease period: a renewal the dead host sent just before it died may
  // land late on a busy machine and hold the lease one more period.
  let took: string[] = []
  for (let i = 0; i < 40 && !took.includes(id); i++) {
    await new Promise(r => setTimeout(r, LEASE + 150))
    took = (await Promise.all([b.recover(), c.recover()])).flat()
  }
  expect(took).toContain(id)
  await Promise.all([b.settled(id), c.settled(id)])
  return b
}

/** A host runs the appendix until its model hangs (call `calls` + 1), acknowledges an abort, and dies. */
async function abortThenDie(store: VfsStore, calls: number) {
  const namespace = ns()
  const hang = hanging(calls)
  const dying = createSessionHost({ store, agents: { appendix: hang.profile }, namespace, leaseMs: LEASE })
  const s = await dying.create({ owner: 'o', profile: 'appendix' })
  await uploadSeason(dying, s.id)
  await dying.send(s.id, { text: APPENDIX_INSTRUCTIONS })
  // The model hangs (its host is as good as dead), the abort is acknowledged, then the host dies.
  await hang.reached
  await dying.abort(s.id)
  await dying.stop()
  return { store, namespace, s }
}

function expectNoRedo(events: SessionEvent[]): void {
  expectContiguous(events)
  const done = completions(events)
  expect(new Set(done).size).toBe(done.length)
}

const ends = (events: SessionEvent[]) => events.filter(e => e.type === 'execution-end').map(e => (e as { status: string }).status)

/**
 * Every request a host acknowledged (a message, an answer, an abort, a resume) is finished after the
 * host dies at once, by exactly one other host, without another request: what `kill -9` does to a
 * server, here a host that stops (no more lease renewals, no more work) right after answering.
 */
export function describeIntent(getStore: () => Promise<VfsStore>) {
  for (const point of ['at once', 'after delivery, before the execution exists'] as const) {
    it(`a message acknowledged, then the host dies ${point}: another host runs it by itself`, async () => {
      const store = await getStore()
      const namespace = ns()
      const dying = createSessionHost({
        store,
        agents: { appendix: point === 'at once' ? appendix : setupHangs },
        namespace,
        leaseMs: LEASE,
      })
      const s = await dying.create({ owner: 'o', profile: 'appendix' })
      await uploadSeason(dying, s.id)
      await dying.send(s.id, { text: APPENDIX_INSTRUCTIONS })
      if (point !== 'at once')
        for (let i = 0; i < 200 && (await dying.messages(s.id))[0].state === 'queued'; i++) await new Promise(r => setTimeout(r, 10))
      await dying.stop()
      const b = await recoverElsewhere(store, namespace, s.id, { appendix })
      await until(b, s.id, ['idle'])
      expect((await b.executions(s.id)).map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
      expect((await b.messages(s.id)).map(m => [m.state, m.executionId])).toEqual([['delivered', 'e0001']])
      const events = await b.events(s.id)
      expectNoRedo(events)
      expect(events.filter(e => e.type === 'execution-start')).toHaveLength(1)
      expect(ends(events)).toEqual(['completed'])
    })
  }

  for (const point of ['at once', 'after the resumed run started'] as const) {
    it(`an answer acknowledged, then the host dies ${point}: another host resumes the execution with it`, async () => {
      const store = await getStore()
      const namespace = ns()
      const dying = createSessionHost({
        store,
        agents: { asking: point === 'at once' ? asking : hangingAfter(1, asking) },
        namespace,
        leaseMs: LEASE,
      })
      const s = await dying.create({ owner: 'o', profile: 'asking' })
      await uploadSeason(dying, s.id)
      await dying.send(s.id, { text: APPENDIX_INSTRUCTIONS })
      await until(dying, s.id, ['waiting_input'])
      const [question] = await dying.pending(s.id)
      await dying.answer(s.id, question.id, { answer: 'Season One' })
      if (point !== 'at once')
        for await (const e of dying.observe(s.id, { heartbeatMs: 0, pollMs: 20 })) if (e.type === 'execution-start' && e.resumed) break
      await dying.stop()
      const b = await recoverElsewhere(store, namespace, s.id, { asking })
      expect(await until(b, s.id, ['waiting_approval'])).toBe('waiting_approval')
      const events = await b.events(s.id)
      expectNoRedo(events)
      expect(events.find(e => e.type === 'tool-result' && e.toolName === 'ask_user')).toMatchObject({
        ok: true,
        output: { answer: 'Season One' },
      })
      expect(events.filter(e => e.type === 'pending-answered')).toHaveLength(1)
      expect((await b.pending(s.id)).map(p => p.kind)).toEqual(['approval'])
    })
  }

  for (const calls of [2, 4]) {
    it(`an abort acknowledged (model call ${calls}), then the host dies: the run ends interrupted, never completed; resume finishes it`, async () => {
      const { store, namespace, s } = await abortThenDie(await getStore(), calls)
      const b = await recoverElsewhere(store, namespace, s.id, { appendix })
      await until(b, s.id, ['idle'])
      expect((await b.executions(s.id))[0].status).toBe('interrupted')
      const events = await b.events(s.id)
      expectNoRedo(events)
      expect(ends(events)).toEqual(['interrupted'])
      // The abort is spent: resuming the execution runs it to the end, no step redone.
      await b.resume(s.id)
      await until(b, s.id, ['idle'])
      const after = await b.events(s.id)
      expectNoRedo(after)
      expect(ends(after)).toEqual(['interrupted', 'completed'])
    })
  }

  it('a message acknowledged by a live host runs there: another host recovering before it takes the lease leaves it', async () => {
    const namespace = ns()
    // Long enough that the second host's recovery below falls inside it even on a loaded machine.
    const leaseMs = 5_000
    let release!: () => void
    const gate = new Promise<void>(r => (release = r))
    let held = false
    // The window between the work entry and the lease, held open: the first lease write of host a waits here.
    const store = delayedLease(await getStore(), 'h-a', async () => {
      held = true
      await gate
    })
    const a = createSessionHost({ store, agents: { appendix }, namespace, leaseMs, hostId: 'h-a' })
    const b = createSessionHost({ store, agents: { appendix }, namespace, leaseMs, hostId: 'h-b' })
    try {
      const s = await a.create({ owner: 'o', profile: 'appendix' })
      await uploadSeason(a, s.id)
      const acknowledged = performance.now()
      await a.send(s.id, { text: APPENDIX_INSTRUCTIONS })
      for (let i = 0; i < 500 && !held; i++) await new Promise(r => setTimeout(r, 10))
      expect(held).toBe(true)
      const took = await b.recover()
      // Past one lease period a's entry is no longer its own: then taking it is right.
      if (performance.now() - acknowledged < leaseMs - 500) expect(took).toEqual([])
      release()
      await until(a, s.id, ['idle'])
      await Promise.all([a.settled(s.id), b.settled(s.id)])
      const events = await a.events(s.id)
      expectNoRedo(events)
      expect(events.filter(e => e.type === 'execution-start')).toHaveLength(1)
      expect(ends(events)).toEqual(['completed'])
    } finally {
      release()
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('a resume acknowledged, then the host dies at once: another host resumes the execution by itself', async () => {
    const { store, namespace, s } = await abortThenDie(await getStore(), 3)
    const second = await recoverElsewhere(store, namespace, s.id, { appendix })
    await until(second, s.id, ['idle'])
    await second.stop()
    const dying = createSessionHost({ store, agents: { appendix }, namespace, leaseMs: LEASE })
    await dying.resume(s.id)
    await dying.stop()
    const b = await recoverElsewhere(store, namespace, s.id, { appendix })
    await until(b, s.id, ['idle'])
    const events = await b.events(s.id)
    expectNoRedo(events)
    expect((await b.executions(s.id))[0].status).toBe('completed')
    expect(ends(events)).toEqual(['interrupted', 'completed'])
    // Started, continued after the crash only to end interrupted (the abort), resumed by the request.
    expect(events.filter(e => e.type === 'execution-start').map(e => (e as { resumed: boolean }).resumed)).toEqual([false, true, true])
  })
}
