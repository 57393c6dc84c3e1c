import { chromium, type Browser } from 'playwright'

/**
 * Debian's Chromium (scripts/ensure-chromium.sh installs it): test tools cannot download browsers
 * here. One place for the path and flags, shared by the browser project (vitest.config.ts), the
 * Playwright-driven demo tests (test/demo) and the demo benchmark.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Flags for a headless, offline, quiet Chromium in a container (no sandbox: we run as root). */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

/** Launches the shared Chromium headless; the caller owns it and closes it. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ headless: true, executablePath: chromiumPath, args: [...chromiumArgs, ...extraArgs] })
}
