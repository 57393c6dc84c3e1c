import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

// The README's picture of the demo is the in-tab flow test's mid-run stage, copied by
// `npm run demo:screenshot` (scripts/demo-screenshot.mjs); this checks the README shows it and it is one.
const root = new URL('../../', import.meta.url)

it('the README shows docs/demo.png, a 1280×800 PNG screenshot of the demo', () => {
  expect(readFileSync(new URL('README.md', root), 'utf8')).toMatch(/!\[[^\]]+\]\(docs\/demo\.png\)/)
  const png = readFileSync(new URL('docs/demo.png', root))
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 800])
})
