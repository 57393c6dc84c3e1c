import type { Browser } from 'playwright'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { appendixFlow } from './appendix-flow.js'
import { openBrowser, openDemo } from './browser.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import * as ui from './ui.js'

// In-tab mode, end to end in Chromium: the session host runs in a Web Worker of the page on
// IndexedDB (nothing else runs). The flow is test/demo/appendix-flow.ts.
let browser: Browser
let input: InputFolder

beforeAll(async () => {
  browser = await openBrowser()
  input = writeEpisodes({ count: 60, name: 'season-one' })
})
afterAll(async () => {
  await browser?.close()
  input?.remove()
})

it('runs the 60-episode appendix in the tab: folder upload, question, approvals, steer, reload mid-run, outputs equal the truth', async () => {
  const { page, errors } = await openDemo(browser, inject('demoUrl'))
  await ui.connect(page)
  await appendixFlow(page, { flow: 'flow-in-tab', input, episodes: 60 })
  expect(errors).toEqual([])
})
