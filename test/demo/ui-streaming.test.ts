import type { Page } from 'playwright'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { openDemo } from './browser.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// Streaming text in the timeline (issue 19): in this tab, the scripted model writes its text a
// little at a time; the timeline shows it growing (`timeline-live`) until the stored text event
// replaces it. Remotely too: the Node host's scripted model streams in the same pieces (DEMO_STREAM).
const rig = useDemoRig()
let input: InputFolder

beforeAll(async () => {
  input = writeEpisodes({ count: 6, name: 'season-short' })
})
afterAll(() => input?.remove())

/** Sends the task in the open session and checks the live text grew piece by piece into the stored text. */
async function expectStreamedText(page: Page): Promise<void> {
  const upload = await ui.uploadFolder(page, input.dir)
  expect(upload.ok, upload.text).toBe(true)
  // Every text the live element showed, as the page rendered it.
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as unknown as { liveSeen: string[] }).liveSeen = seen
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid="timeline-live"]')) {
        const text = (el.textContent ?? '').replace(/▍$/, '')
        if (seen.at(-1) !== text) seen.push(text)
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  await ui.sendMessage(page, 'Write the production appendix for this season.')
  const stored = page.locator('[data-testid="timeline-item"][data-type="text"]')
  await stored.first().waitFor({ timeout: 60_000 })
  // The run goes on after its first text (a later step may stream its own): read once it has stopped.
  await ui.waitStatus(page, 'idle', 'waiting_input', 'waiting_approval')
  const texts = (await stored.allTextContents()).map(t => t.replace(/^agent\s*/, ''))
  const text = texts[0]!
  const seen = await page.evaluate(() => (window as unknown as { liveSeen: string[] }).liveSeen)
  // Seen growing, piece by piece, each a beginning of a stored text, the first one's among them.
  const ofFirst = seen.filter(s => text.startsWith(s))
  expect(ofFirst.length).toBeGreaterThan(1)
  expect(
    seen.filter(s => !texts.some(t => t.startsWith(s))),
    JSON.stringify({ texts, seen }),
  ).toEqual([])
  expect(new Set(ofFirst.map(s => s.length)).size).toBeGreaterThan(1)
  // The live element of that text is gone once the stored one is there.
  await expect.poll(() => page.locator('[data-testid="timeline-live"]').filter({ hasText: text }).count()).toBe(0)
}

it('shows the agent text as it is generated, then the stored text in its place', async () => {
  const { page, errors } = await openDemo(rig.browser, inject('demoUrl'))
  await ui.connect(page)
  await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'Streaming' })
  await expectStreamedText(page)
  expect(errors).toEqual([])
})

it('remote (npm run serve), the offline model streams in pieces too (issue 28: it sent its text as one delta)', async () => {
  const { page, errors } = await openDemo(rig.browser, rig.demo.url)
  await ui.connect(page, { remote: { baseUrl: rig.demo.url.replace(/\/$/, ''), token: rig.host.token } })
  await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'Streaming remote' })
  await expectStreamedText(page)
  expect(errors).toEqual([])
})
