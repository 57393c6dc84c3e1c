import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { blocks, fill, measure, stalePages, UPDATE_COMMAND } from '../../scripts/sizes.mjs'

// The sizes the docs quote are the build's: scripts/sizes.mjs generates them from dist/size.json,
// `npm pack --dry-run` and the installed toolchain, and this test fails when a page differs. `npm test`
// builds first (scripts/test.sh). After a change to what the build ships, regenerate. The tarball's
// figures may drift by 1% (it holds the docs themselves), so a docs edit alone needs no regeneration.
const root = new URL('../../', import.meta.url)

/** The first line where two texts differ, for a failure that shows what changed. */
function firstDifference(have: string, want: string): string {
  const a = have.split('\n')
  const b = want.split('\n')
  const i = a.findIndex((line, n) => line !== b[n])
  return `line ${i + 1}:\n  docs:  ${a[i]}\n  build: ${b[i]}`
}

describe('size figures in the docs', () => {
  const figures = measure()

  it('docs/limits.md and test/consumers/SIZES.md show the sizes of this build', () => {
    const stale = stalePages(figures)
    const report = stale.map(s => `${s.page} ${firstDifference(s.text, s.want)}`).join('\n')
    expect(
      stale.map(s => s.page),
      `the sizes differ from the build: run ${UPDATE_COMMAND}\n${report}`,
    ).toEqual([])
  })

  it('a figure that differs from the build is caught (the check can fail)', () => {
    const first = Object.keys(figures.size)[0]!
    const grown = {
      ...figures,
      size: { ...figures.size, [first]: { ...figures.size[first]!, minified: figures.size[first]!.minified + 2048 } },
    }
    expect(stalePages(grown).map(s => s.page)).toContain('docs/limits.md')
    const page = readFileSync(new URL('docs/limits.md', root), 'utf8')
    expect(fill('docs/limits.md', page, blocks(grown)['docs/limits.md']!)).not.toBe(page)
    expect(() => fill('docs/limits.md', 'no markers here', { entries: 'x' })).toThrow(/no <!-- sizes:entries/)
  })

  it('the tarball figures may drift by 1% (a docs edit moves them), not more, and the file count not at all', () => {
    const { pack } = figures
    const withPack = (p: Partial<typeof pack>) => stalePages({ ...figures, pack: { ...pack, ...p } }).map(s => s.page)
    expect(withPack({ unpacked: pack.unpacked + 2048 })).toEqual([])
    expect(withPack({ unpacked: Math.round(pack.unpacked * 1.03) })).toEqual(['docs/limits.md', 'test/consumers/SIZES.md'])
    expect(withPack({ packed: Math.round(pack.packed * 0.97) })).toEqual(['docs/limits.md', 'test/consumers/SIZES.md'])
    expect(withPack({ files: pack.files + 1 })).toEqual(['docs/limits.md', 'test/consumers/SIZES.md'])
  })
})
