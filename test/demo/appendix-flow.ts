import type { Page } from 'playwright'
import { expect } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { expectedOutputs } from './appendix-truth.js'
import { stage } from './browser.js'
import type { InputFolder } from './inputs.js'
import * as ui from './ui.js'

/** Options of {@link appendixFlow}. */
export interface AppendixFlowOptions {
  /** Folder of the screenshots under test-results/demo/. */
  flow: string
  input: InputFolder
  episodes: number
  /** Checks after each reload (remote mode compares the timeline with the host's event log). */
  afterReload?(page: Page, sessionId: string): Promise<void>
  /** Also reload while the execution runs (not only while it waits). */
  reloadWhileRunning?: boolean
}

/** Reloads the tab and reopens the session; returns when its view shows again. */
async function reload(page: Page, id: string): Promise<void> {
  await page.reload()
  await ui.sessionsLoaded(page)
  await ui.openSession(page, id)
}

/**
 * The script-appendix task through the demo's UI, as issue 11 lists it, on a page already
 * connected: a session with the asking profile, the season uploaded as a folder, the title
 * question answered, run_js approved, a steer, a reload while the run waits (and, optionally, one
 * while it runs), then the outputs in the preview checked against the generator's answer key.
 * Screenshots of each stage go to test-results/demo/<flow>/. Returns the session id.
 */
export async function appendixFlow(page: Page, options: AppendixFlowOptions): Promise<string> {
  const { flow, input } = options
  await stage(page, flow, '01-sessions')
  const id = await ui.createSession(page, { profile: DEMO_PROFILES.appendixAsking, title: 'Season one' })
  const upload = await ui.uploadFolder(page, input.dir)
  expect(upload.ok, upload.text).toBe(true)
  expect(upload.text).toContain(`Uploaded ${input.files.length} file(s) to /context`)
  await ui.waitTree(
    page,
    input.files.map(f => `/context/${f}`),
  )
  await stage(page, flow, '02-uploaded')

  await ui.sendMessage(page, 'Write the production appendix for this season.')
  await ui.answerOption(page, 'Season One')
  // Every run_js call asks first: approve the first one once; the next call asks again.
  expect(await ui.approve(page, 'once')).toContain('run_js')
  await ui.pending(page, 'approval')
  // A steer while the run waits is held for it; it is handed over at the run's next model call.
  await ui.steer(page, 'Keep the bit parts in the validation report.')
  await stage(page, flow, '03-mid-run')

  // Reload while the execution waits for the second approval. In this tab the worker dies with the
  // page and the next one takes the run over from its checkpoint; remotely the host keeps it and
  // the page reconnects its event stream. Either way nothing done is lost or redone.
  const before = await ui.planSteps(page)
  const seqsBefore = (await ui.timeline(page)).map(e => e.seq)
  // When no step completed, say which tool calls failed (a program that failed is asked for again).
  const failed = before.some(s => s.status === 'completed')
    ? []
    : await page
        .locator('[data-testid="timeline-item"][data-type="tool-call"][data-state="failed"]')
        .allTextContents()
        .then(texts => texts.map(t => t.slice(-400)))
  expect(
    before.some(s => s.status === 'completed'),
    `${JSON.stringify(before)}; failed calls: ${JSON.stringify(failed)}`,
  ).toBe(true)
  await reload(page, id)
  await ui.pending(page, 'approval')
  await ui.waitSeq(page, Math.max(...seqsBefore))
  const after = await ui.planSteps(page)
  for (const step of before.filter(s => s.status === 'completed')) expect(after).toContainEqual(step)
  const seqsAfter = (await ui.timeline(page)).map(e => e.seq)
  expect(seqsAfter.slice(0, seqsBefore.length)).toEqual(seqsBefore)
  expect(new Set(seqsAfter).size).toBe(seqsAfter.length)
  await options.afterReload?.(page, id)
  await stage(page, flow, '04-reloaded')

  await ui.approve(page, 'always')
  await page.locator('[data-testid="timeline-item"][data-type="steer-delivered"]').waitFor()
  if (options.reloadWhileRunning) {
    // Only a reload that lands while the run runs tests a live stream's resumption; a run that has
    // already ended (a fast machine) still passes, saying so.
    if ((await ui.waitStatus(page, 'running', 'idle')) === 'running') {
      await reload(page, id)
      await options.afterReload?.(page, id)
    } else console.warn(`${flow}: the run ended before the reload while running`)
  }
  await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
  expect(await ui.waitStatus(page, 'idle', 'closed')).toBe('idle')
  const steps = await ui.planSteps(page)
  expect(steps.length).toBeGreaterThan(0)
  expect(
    steps.every(s => s.status === 'completed'),
    JSON.stringify(steps),
  ).toBe(true)
  // The scripted model leaves one episode out on purpose, is rejected once, and corrects it.
  expect((await ui.timeline(page)).filter(e => e.type === 'result-rejected')).toHaveLength(1)
  // Resumed, not restarted: the work finished before the reloads ran once.
  for (const done of ['survey the input', 'extract episodes']) {
    expect(await page.locator('[data-testid="timeline-item"][data-tool="run_js"]', { hasText: done }).count(), done).toBe(1)
  }

  const expected = expectedOutputs(input.truth, options.episodes)
  const assets = await ui.openFile(page, '/outputs/assets.json')
  await assets.getByTestId('preview-json').waitFor()
  expect(JSON.parse(await ui.previewText(assets))).toEqual(expected.assets)
  expect(JSON.parse(await ui.previewText(await ui.openFile(page, '/outputs/coverage.json')))).toEqual(expected.coverage)
  const appendix = await ui.openFile(page, '/outputs/appendix.md')
  const rendered = appendix.getByTestId('preview-markdown')
  await rendered.waitFor()
  expect(await rendered.locator('h1').textContent()).toBe('Season One') // the answer to the title question
  expect(await rendered.textContent()).toContain(expected.summary)
  expect(await rendered.locator('li').allTextContents()).toEqual(expected.appendixItems)
  await stage(page, flow, '05-done')
  return id
}
