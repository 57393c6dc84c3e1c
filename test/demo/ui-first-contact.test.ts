import type { Page } from 'playwright'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { openDemo, stage } from './browser.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// What a newcomer tripped over in the demo (issue 17, "Messages and the demo"), each as the UI
// shows it: the connection card folds away once connected, untitled sessions get a name, the
// profile menu fits, a run_js card waiting for approval says so (and its program shows once),
// outputs come before the inputs and "see /outputs" is a link, the approval is on a phone's
// first screen, and switching In this tab ↔ Remote with a session open starts clean. The layout
// checks are soft: one run reports every one that fails.
// Screenshots: test-results/demo/first-contact/.
const rig = useDemoRig()
let input: InputFolder

beforeAll(async () => {
  input = writeEpisodes({ count: 60, name: 'season-one' })
  // The demo served with the API on its own origin (the Node host sends no CORS headers).
})
afterAll(async () => {
  input?.remove()
})

const FLOW = 'first-contact'

/** Height of an element as laid out, in CSS px. */
const heightOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate(el => el.getBoundingClientRect().height)

/** Runs the asking profile on the season up to its first run_js approval. */
async function runToApproval(page: Page): Promise<void> {
  await ui.createSession(page, { profile: DEMO_PROFILES.appendixAsking, title: 'Season one' })
  const upload = await ui.uploadFolder(page, input.dir)
  expect(upload.ok, upload.text).toBe(true)
  await ui.sendMessage(page, 'Write the production appendix for this season.')
  await ui.answerOption(page, 'Season One')
  await ui.pending(page, 'approval')
}

it('desktop: the connection folds, names and menus fit, a waiting card says so, outputs first and linked', async () => {
  const { page, errors } = await openDemo(rig.browser, rig.demo.url)
  await ui.connect(page)
  // Connected: the card keeps one line (its summary with the status), not the whole form.
  expect.soft(await heightOf(page, 'details.connection')).toBeLessThan(70)

  // The profile menu shows its whole label in the sessions column.
  const menu = page.getByTestId('new-session-profile')
  for (const profile of Object.values(DEMO_PROFILES)) {
    await menu.selectOption(profile)
    const fits = await menu.evaluate(el => {
      const select = el as HTMLSelectElement
      const probe = document.createElement('span')
      probe.style.cssText = `position:absolute;visibility:hidden;white-space:nowrap;font:${getComputedStyle(select).font}`
      probe.textContent = select.selectedOptions[0]?.textContent ?? ''
      document.body.append(probe)
      const width = probe.getBoundingClientRect().width
      probe.remove()
      // The text box of a select: its width less padding and the arrow (~24 px).
      return { width, room: select.clientWidth - 24 - parseFloat(getComputedStyle(select).paddingLeft) }
    })
    expect.soft(fits.width, `"${profile}" in the profile menu`).toBeLessThanOrEqual(fits.room)
  }

  // An untitled session is named for people, in the list and in its header, never by its id.
  await page.getByTestId('new-session-profile').selectOption(DEMO_PROFILES.appendix)
  await page.getByTestId('new-session').click()
  const untitled = page.getByTestId('session-item').first()
  await untitled.waitFor()
  const untitledId = (await untitled.getAttribute('data-session-id'))!
  await ui.openSession(page, untitledId)
  expect.soft(await untitled.locator('.session-title').textContent()).not.toContain(untitledId)
  expect.soft(await untitled.locator('.session-title').textContent()).toMatch(/^Untitled/)
  expect.soft(await page.locator('.session-head h2').textContent()).toMatch(/^Untitled/)

  await runToApproval(page)
  // The run_js card waiting for approval says so, and its program is shown once (in the prompt).
  const card = page.locator('[data-testid="timeline-item"][data-tool="run_js"]').last()
  await expect.poll(() => card.getAttribute('data-state'), { timeout: 10_000 }).toBe('waiting')
  expect.soft(await card.textContent()).toMatch(/waiting for approval/i)
  // A program's text as shown, without line numbers (the card numbers its lines, the prompt does not).
  const programText = (el: Element) => Array.from(el.querySelectorAll('.line'), l => l.lastElementChild?.textContent ?? '').join('\n')
  const program = await page.locator('[data-testid="pending-item"][data-kind="approval"] .code').first().evaluate(programText)
  expect(program.length).toBeGreaterThan(20)
  const shown = await page
    .locator('.code:visible')
    .evaluateAll((els, [text, fn]) => els.filter(e => new Function('el', `return (${fn})(el)`)(e) === text).length, [
      program,
      programText.toString(),
    ] as const)
  expect.soft(shown).toBe(1)
  await stage(page, FLOW, '01-desktop-approval')

  await ui.approve(page, 'always')
  await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
  expect(await ui.waitStatus(page, 'idle')).toBe('idle')
  // The outputs come before the 60 inputs in the tree, and "see /outputs" takes a person there.
  await ui.waitTree(page, ['/outputs/appendix.md'])
  const dirs = await page
    .locator('[data-testid="file-tree"] > ul > li > [data-testid="file-dir"]')
    .evaluateAll(els => els.map(e => e.getAttribute('data-path')))
  expect(dirs.indexOf('/outputs')).toBeGreaterThanOrEqual(0)
  expect.soft(dirs.indexOf('/outputs')).toBeLessThan(dirs.indexOf('/context'))
  await stage(page, FLOW, '02-desktop-done')

  // The follow-up (an index by location) ends with "Done: see /outputs.": the path is a link that
  // unfolds that folder in the tree and takes the focus there.
  await ui.sendMessage(page, 'Add an index of characters by location.')
  const done = page.locator('[data-testid="timeline-item"][data-type="text"]', { hasText: 'see /outputs' }).last()
  await done.waitFor()
  await ui.waitTree(page, ['/outputs/appendix.md'])
  await done.locator('[data-testid="file-link"][data-path="/outputs"]').click()
  const outputs = page.locator('[data-testid="file-dir"][data-path="/outputs"]')
  expect(await outputs.evaluate(d => (d as HTMLDetailsElement).open)).toBe(true)
  expect(await outputs.evaluate(d => d.matches(':focus-within'))).toBe(true)
  expect(errors).toEqual([])
})

it('phone: the approval is on the first screen of an open session', async () => {
  const viewport = { width: 390, height: 844 }
  const { page, errors } = await openDemo(rig.browser, rig.demo.url, { viewport })
  await ui.connect(page)
  await runToApproval(page)
  const approval = page.locator('[data-testid="pending-item"][data-kind="approval"]').first()
  await page.evaluate(() => window.scrollTo(0, 0))
  const box = (await approval.boundingBox())!
  expect.soft(box.y, 'the approval card starts on the first screen').toBeLessThan(viewport.height / 2)
  await stage(page, FLOW, '03-phone-approval')
  await ui.approve(page, 'always')
  await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor()
  expect(errors).toEqual([])
})

it('switching In this tab and Remote with a session open starts clean: no stale session, no 404s, files not stuck loading', async () => {
  const { page, errors } = await openDemo(rig.browser, rig.demo.url)
  await ui.connect(page)
  const id = await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'In the tab' })
  const notFound: string[] = []
  page.on('response', r => (r.status() === 404 ? notFound.push(r.url()) : undefined))

  // To the remote host, which has never heard of the tab's session.
  await ui.connect(page, { remote: { baseUrl: '', token: rig.host.token } })
  await expect.poll(() => page.locator('[data-testid="session-view"]').count(), { timeout: 5_000 }).toBe(0)
  expect.soft(new URL(page.url()).hash).not.toContain(id)
  expect.soft(await page.locator('[role="alert"]').allTextContents()).toEqual([])
  await stage(page, FLOW, '04-switched-remote')

  // A remote session, then back to the tab: again nothing stale.
  const remoteId = await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'Remote one' })
  await page.getByTestId('file-tree').filter({ hasNotText: 'Loading…' }).waitFor()
  await ui.connect(page)
  await expect.poll(() => page.locator('[data-testid="session-view"]').count()).toBe(0)
  expect.soft(new URL(page.url()).hash).not.toContain(remoteId)
  expect.soft(await page.locator('[role="alert"]').allTextContents()).toEqual([])
  // The tab's own session is still there and opens with its files listed.
  await ui.openSession(page, id)
  await page.getByTestId('file-tree').filter({ hasNotText: 'Loading…' }).waitFor()
  expect.soft(notFound).toEqual([])
  expect(errors).toEqual([])
})
