import { describe, expect, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { PROGRAM_QUESTION, PROGRAM_TITLES } from '../../fixtures/script-appendix/program-question.js'
import { openDemo, stage } from './browser.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// A question asked from inside a run_js program, in the demo against the Node host (`npm run serve`,
// programs in worker threads): the question shows as any other; the host is restarted while it waits;
// the answer given in the page after the restart resumes the program, which finishes without redoing
// what it did before it asked.

const rig = useDemoRig()
/** The host's stored events of a session (first page is enough: this session is short). */
async function hostEvents(id: string): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${rig.host.url}/sessions/${id}/events?after=0`, { headers: { authorization: `Bearer ${rig.host.token}` } })
  expect(res.status).toBe(200)
  return ((await res.json()) as { events: Array<Record<string, any>> }).events
}

async function version(id: string, suffix: string): Promise<number | undefined> {
  const res = await fetch(`${rig.host.url}/sessions/${id}/files`, { headers: { authorization: `Bearer ${rig.host.token}` } })
  const files = (await res.json()) as Array<{ path: string; version: number }>
  return files.find(f => f.path.endsWith(suffix))?.version
}

describe('demo: a question from inside a program, answered after the Node host restarted', () => {
  it('shows the program’s question; after a restart the answer finishes the program without redoing its first write', async () => {
    const { page, errors } = await openDemo(rig.browser, rig.demo.url)
    await ui.connect(page, { remote: { baseUrl: rig.demo.url.replace(/\/$/, ''), token: rig.host.token } })
    const id = await ui.createSession(page, { profile: DEMO_PROFILES.programQuestion, title: 'Program asks' })
    await ui.sendMessage(page, 'Pick a title for the appendix.')

    // The question comes from the program, and shows as the agent's own questions do.
    const question = await ui.pending(page, 'question')
    expect(await question.textContent()).toContain(PROGRAM_QUESTION)
    for (const title of PROGRAM_TITLES) await expect.poll(() => question.textContent()).toContain(title)
    await ui.waitStatus(page, 'waiting_input')
    // The run_js card says its program waits for an answer (not "running"), and still shows the program.
    const card = page.locator('[data-testid="timeline-item"][data-type="tool-call"][data-tool="run_js"]').last()
    await expect.poll(() => card.getAttribute('data-state')).toBe('asking')
    expect(await card.locator('summary').textContent()).toContain('waiting for an answer')
    expect(await card.textContent()).not.toMatch(/running|waiting for approval/)
    expect(await card.getByLabel('run_js program').count()).toBe(1)
    await stage(page, 'flow-program-question', '01-program-asks')
    const asked = await version(id, '/work/asked.md')
    expect(asked).toBeGreaterThan(0)
    expect(await version(id, '/outputs/title.md')).toBeUndefined()

    // The host restarts (SIGTERM, a new process on the same data): the page reconnects on its own.
    rig.host = await rig.host.restart()
    await page.reload()
    await ui.openSession(page, id)
    // Rebuilt from the stored events after the restart: still waiting for the answer.
    await expect.poll(() => card.getAttribute('data-state')).toBe('asking')
    await ui.answerOption(page, PROGRAM_TITLES[1])
    await ui.waitStatus(page, 'idle')
    await ui.waitTree(page, ['/outputs/title.md'])
    await stage(page, 'flow-program-question', '02-program-finished')

    expect(await version(id, '/work/asked.md')).toBe(asked) // replayed from the journal, not written again
    const events = await hostEvents(id)
    const results = events.filter(e => e.type === 'tool-result' && e.toolName === 'run_js')
    expect(results.at(-1)).toMatchObject({ ok: true, output: { success: true, result: { title: PROGRAM_TITLES[1] } } })
    expect(events.filter(e => e.type === 'execution-end').map(e => e.status)).toEqual(['suspended', 'completed'])
    const item = page.locator('[data-testid="timeline-item"][data-type="tool-call"][data-tool="run_js"]').last()
    await expect.poll(() => item.getAttribute('data-state')).toBe('ok')
    expect(errors.filter(e => !/Failed to load resource|ERR_CONNECTION|net::/.test(e))).toEqual([])
  })
})
