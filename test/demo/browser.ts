import { mkdirSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright'
import { launchChromium } from '../shared/chromium.js'
import { root } from './serve-demo.js'

/** Where the demo tests leave their screenshots (gitignored; CI keeps them as artifacts). */
export const artifactsDir = `${root}test-results/demo`

/** A page of the demo in a fresh browser context (its own IndexedDB and localStorage). */
export interface DemoPage {
  context: BrowserContext
  page: Page
  /** Uncaught errors of the page and its workers, and console errors: a test checks it is empty. */
  errors: string[]
}

/** Launches the one Chromium a test file uses (the demo project runs its files one after another). */
export function openBrowser(): Promise<Browser> {
  return launchChromium()
}

/** Opens the demo at `url` in a fresh context, laptop-sized, collecting errors; `init` runs before the first load. */
export async function openDemo(
  browser: Browser,
  url: string,
  options: { viewport?: { width: number; height: number }; init?(page: Page): Promise<void> } = {},
): Promise<DemoPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } })
  const page = await context.newPage()
  const errors: string[] = []
  watchErrors(page, errors)
  page.setDefaultTimeout(120_000)
  await options.init?.(page)
  await page.goto(url)
  return { context, page, errors }
}

/** Collects a page's uncaught errors, its workers' errors and its console errors into `errors`. */
export function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', e => errors.push(`page: ${e.message}`))
  page.on('console', m => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`)
  })
  page.on('worker', w => w.on('console', m => (m.type() === 'error' ? errors.push(`worker console: ${m.text()}`) : undefined)))
}

/**
 * Saves one stage of a flow as `test-results/demo/<flow>/<stage>.png` (the window, as a person
 * sees it from the top; the README's picture is one of these) and `<stage>-full.png` (the whole page).
 * Stage names carry their order (`01-sessions`, `03-mid-run`, …). Returns the window's file.
 */
export async function stage(page: Page, flow: string, name: string): Promise<string> {
  const dir = `${artifactsDir}/${flow}`
  mkdirSync(dir, { recursive: true })
  const path = `${dir}/${name}.png`
  // The window from the top (where the session's header, prompts and plan are), whatever was clicked last.
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path, animations: 'disabled' })
  await page.screenshot({ path: `${dir}/${name}-full.png`, fullPage: true, animations: 'disabled' })
  return path
}
