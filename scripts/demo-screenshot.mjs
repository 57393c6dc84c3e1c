#!/usr/bin/env node
// `npm run demo:screenshot`: refreshes the README's picture of the demo (docs/demo.png) from the
// in-tab flow test (test/demo/flow-in-tab.test.ts), which leaves a screenshot of every stage in
// test-results/demo/flow-in-tab/. The README shows the mid-run stage: the run waits for approval
// of a run_js program, with the plan one step in. The picture is copied, never made by hand, and
// only from a run that just passed. `--no-run` copies the stage the last test run left.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs'

const STAGE = new URL('../test-results/demo/flow-in-tab/03-mid-run.png', import.meta.url)
const TARGET = new URL('../docs/demo.png', import.meta.url)
const started = Date.now()

if (!process.argv.includes('--no-run')) {
  const run = spawnSync('npx', ['vitest', 'run', '--project', 'demo', 'test/demo/flow-in-tab.test.ts'], { stdio: 'inherit' })
  if (run.status !== 0) {
    console.error('the in-tab flow test failed: docs/demo.png is left as it was')
    process.exit(1)
  }
}
let stat
try {
  stat = statSync(STAGE)
} catch {
  console.error(`no screenshot at ${STAGE.pathname}: run the in-tab flow test first`)
  process.exit(1)
}
if (!process.argv.includes('--no-run') && stat.mtimeMs < started) {
  console.error(`${STAGE.pathname} is older than this run: the test did not reach the mid-run stage`)
  process.exit(1)
}
const png = readFileSync(STAGE)
if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
  console.error(`${STAGE.pathname} is not a PNG`)
  process.exit(1)
}
mkdirSync(new URL('../docs/', import.meta.url), { recursive: true })
copyFileSync(STAGE, TARGET)
console.log(
  `docs/demo.png updated from test-results/demo/flow-in-tab/03-mid-run.png (${png.byteLength} bytes, ${png.readUInt32BE(16)}×${png.readUInt32BE(20)})`,
)
