import { describe, expect, it } from 'vitest'
import { admit, canMove, decide, REQUEST_MOVES, requestMove, shownStatus, STATUS_MOVES, TRANSITIONS } from '../../src/session/state.js'
import type { SessionFacts, TransitionName } from '../../src/session/state.js'
import type { SessionMessage, SessionStatus } from '../../src/session/types.js'

const msg = (n: number, over: Partial<SessionMessage> = {}): SessionMessage => ({
  n,
  text: `m${n}`,
  mode: 'follow-up',
  at: n,
  state: 'queued',
  ...over,
})
const facts = (over: Partial<SessionFacts> = {}): SessionFacts => ({ status: 'idle', deleting: false, messages: [], ...over })

/** One case per row of the table: the facts, the row that must match, the step and status it gives. */
const rows: Record<TransitionName, { facts: SessionFacts; step: unknown; status: SessionStatus }> = {
  gone: { facts: facts({ deleting: true, messages: [msg(1)] }), step: { kind: 'none' }, status: 'closed' },
  closed: {
    facts: facts({ status: 'closed', messages: [msg(1)], last: { id: 'e0001', status: 'running' } }),
    step: { kind: 'none' },
    status: 'closed',
  },
  'running-aborted': {
    facts: facts({ status: 'running', last: { id: 'e0002', status: 'running' }, abort: { executionId: 'e0002' } }),
    step: { kind: 'resume', executionId: 'e0002', deliver: false, aborted: true, spend: false },
    status: 'running',
  },
  'running-orphaned': {
    // An abort of an older execution does not stop this one.
    facts: facts({ status: 'running', last: { id: 'e0002', status: 'running' }, abort: { executionId: 'e0001' } }),
    step: { kind: 'resume', executionId: 'e0002', deliver: false, aborted: false, spend: false },
    status: 'running',
  },
  'suspended-answered': {
    facts: facts({
      status: 'waiting_input',
      last: { id: 'e0001', status: 'suspended' },
      pending: { kind: 'question', answered: true },
    }),
    step: { kind: 'resume', executionId: 'e0001', deliver: false, aborted: false, spend: false },
    status: 'running',
  },
  'suspended-waiting': {
    // A queued message waits behind the suspended execution.
    facts: facts({
      last: { id: 'e0001', status: 'suspended' },
      pending: { kind: 'approval', answered: false },
      messages: [msg(1)],
    }),
    step: { kind: 'none' },
    status: 'waiting_approval',
  },
  'interrupted-message': {
    facts: facts({
      last: { id: 'e0001', status: 'interrupted' },
      messages: [msg(1, { state: 'delivered', executionId: 'e0001' }), msg(2)],
      abort: { executionId: 'e0001' },
    }),
    step: { kind: 'resume', executionId: 'e0001', deliver: true, aborted: false, spend: true },
    status: 'running',
  },
  'interrupted-resumed': {
    facts: facts({
      last: { id: 'e0001', status: 'interrupted' },
      resume: { executionId: 'e0001' },
      abort: { executionId: 'e0001' },
    }),
    step: { kind: 'resume', executionId: 'e0001', deliver: false, aborted: false, spend: true },
    status: 'running',
  },
  'interrupted-idle': {
    // A resume request for another execution is not this one's.
    facts: facts({ last: { id: 'e0002', status: 'interrupted' }, resume: { executionId: 'e0001' } }),
    step: { kind: 'none' },
    status: 'idle',
  },
  'proposal-answered': {
    // A decision stored before a crash is carried out before the queued message starts anything.
    facts: facts({ last: { id: 'e0001', status: 'completed' }, proposal: { answered: true }, messages: [msg(2)] }),
    step: { kind: 'apply', executionId: 'e0001' },
    status: 'waiting_approval',
  },
  'proposal-waiting': {
    // A failed execution's writes are proposed too; a queued message waits for the review.
    facts: facts({ last: { id: 'e0003', status: 'failed' }, proposal: { answered: false }, messages: [msg(4)] }),
    step: { kind: 'none' },
    status: 'waiting_approval',
  },
  'start-orphan': {
    facts: facts({
      last: { id: 'e0001', status: 'completed' },
      messages: [msg(1, { state: 'delivered', executionId: 'e0001' }), msg(2, { state: 'delivered', executionId: 'e0002' }), msg(3)],
    }),
    step: { kind: 'start', message: msg(2, { state: 'delivered', executionId: 'e0002' }), executionId: 'e0002' },
    status: 'running',
  },
  'start-queued': {
    facts: facts({ last: { id: 'e0009', status: 'failed' }, messages: [msg(4), msg(5)] }),
    step: { kind: 'start', message: msg(4), executionId: 'e0010' },
    status: 'running',
  },
  idle: {
    facts: facts({
      last: { id: 'e0001', status: 'completed' },
      messages: [msg(1, { state: 'delivered', executionId: 'e0001' })],
    }),
    step: { kind: 'none' },
    status: 'idle',
  },
}

describe('session state machine', () => {
  it('has a case for every row of the table', () => {
    expect(Object.keys(rows).sort()).toEqual(Object.keys(TRANSITIONS).sort())
  })

  for (const [row, c] of Object.entries(rows)) {
    it(`row ${row}: ${JSON.stringify(c.step)} → ${c.status}`, () => {
      expect(decide(c.facts)).toEqual({ row, step: c.step, status: c.status })
    })
  }

  it('starts the first execution as e0001, and a steer queued on an idle session starts one too', () => {
    expect(decide(facts({ messages: [msg(1, { mode: 'steer' })] })).step).toEqual({
      kind: 'start',
      message: msg(1, { mode: 'steer' }),
      executionId: 'e0001',
    })
  })

  it('shows acknowledged work at once: running on the execution a queued message starts, else on the newest', () => {
    expect(shownStatus(facts({ messages: [msg(1, { mode: 'task' })] }))).toEqual({ status: 'running', executionId: 'e0001' })
    expect(shownStatus(facts({ last: { id: 'e0001', status: 'completed' }, messages: [msg(2)] }))).toEqual({
      status: 'running',
      executionId: 'e0002',
    })
    expect(shownStatus(facts({ last: { id: 'e0001', status: 'interrupted' }, messages: [msg(2)] }))).toEqual({
      status: 'running',
      executionId: 'e0001',
    })
    expect(shownStatus(facts({ last: { id: 'e0001', status: 'completed' } }))).toEqual({ status: 'idle', executionId: 'e0001' })
    expect(shownStatus(facts())).toEqual({ status: 'idle' })
  })

  it('a suspended execution whose pending action is gone waits, as idle', () => {
    expect(decide(facts({ last: { id: 'e0001', status: 'suspended' } }))).toEqual({
      row: 'suspended-waiting',
      step: { kind: 'none' },
      status: 'idle',
    })
  })

  it('refuses requests the state does not allow, with the API codes', () => {
    expect(admit('send', { status: 'closed' })?.code).toBe('closed')
    expect(admit('send', { status: 'running' })).toBeUndefined()
    expect(admit('answer', { status: 'waiting_input' })?.code).toBe('not-waiting')
    expect(admit('answer', { status: 'waiting_input', pending: { kind: 'question', answered: true } })?.code).toBe('not-waiting')
    expect(admit('answer', { status: 'waiting_input', pending: { kind: 'question', answered: false } })).toBeUndefined()
    expect(admit('answer', { status: 'closed', pending: { kind: 'question', answered: false } })?.code).toBe('closed')
    expect(admit('abort', { status: 'idle', executionId: 'e0001' })?.code).toBe('not-running')
    expect(admit('abort', { status: 'running' })?.code).toBe('not-running')
    expect(admit('abort', { status: 'running', executionId: 'e0001' })).toBeUndefined()
    for (const status of ['completed', 'running', 'suspended', 'failed'] as const)
      expect(admit('resume', { status: 'idle', last: { id: 'e0001', status } })?.code).toBe('not-interrupted')
    expect(admit('resume', { status: 'idle' })?.code).toBe('not-interrupted')
    expect(admit('resume', { status: 'idle', last: { id: 'e0001', status: 'interrupted' } })).toBeUndefined()
    expect(admit('resume', { status: 'closed', last: { id: 'e0001', status: 'interrupted' } })?.code).toBe('closed')
  })

  it('refuses status moves out of closed; allows every other move in the table and staying put', () => {
    const all: SessionStatus[] = ['idle', 'running', 'waiting_input', 'waiting_approval', 'closed']
    for (const to of all) expect(canMove('closed', to)).toBe(to === 'closed')
    for (const from of all.filter(s => s !== 'closed'))
      for (const to of all) expect(canMove(from, to)).toBe(from === to || STATUS_MOVES[from].includes(to))
    expect(STATUS_MOVES.idle).toContain('closed')
  })

  it('close moves every open status to closed; reopen moves only closed, to idle; anything else changes nothing', () => {
    const all: SessionStatus[] = ['idle', 'running', 'waiting_input', 'waiting_approval', 'closed']
    for (const from of all) expect([from, requestMove('close', from)]).toEqual([from, from === 'closed' ? undefined : 'closed'])
    for (const from of all) expect([from, requestMove('reopen', from)]).toEqual([from, from === 'closed' ? 'idle' : undefined])
    // The reopen request is the only move out of closed: no settle leaves it, no other request does.
    const leaving = Object.entries(REQUEST_MOVES).filter(([, m]) => m.from.includes('closed') && m.to !== 'closed')
    expect(leaving.map(([request]) => request)).toEqual(['reopen'])
    // A close goes where a settle may go too (a host that saw the close settles there).
    for (const from of REQUEST_MOVES.close.from) expect(canMove(from, 'closed')).toBe(true)
  })
})
