import { describe, expect, it } from 'vitest'
import { charactersMd, generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { CAST } from '../../fixtures/script-appendix/cast.js'
import { extractAssets } from '../agent/fountain.js'

describe('script-appendix generator', () => {
  it('makes 60 episodes and characters.md, byte-identical for the same seed', () => {
    const a = generateEpisodes()
    const b = generateEpisodes({ count: 60, seed: 1 })
    expect(Object.keys(a.files)).toHaveLength(61)
    expect(Object.keys(a.files).filter(p => p.startsWith('episodes/'))).toEqual(
      Array.from({ length: 60 }, (_, i) => `episodes/episode-${String(i + 1).padStart(2, '0')}.fountain`),
    )
    expect(a).toEqual(b)
    expect(generateEpisodes({ seed: 2 }).files['episodes/episode-01.fountain']).not.toBe(a.files['episodes/episode-01.fountain'])
  })

  it('writes the simplified Fountain format', () => {
    const { files } = generateEpisodes({ count: 60 })
    expect(files['characters.md']).toBe(charactersMd())
    expect(files['characters.md']).toContain('- MARA VOSS: THE STRANGER, MARA\n')
    for (const [path, text] of Object.entries(files)) {
      if (path === 'characters.md') continue
      const lines = text.split('\n')
      expect(lines[0]).toMatch(/^# Episode \d+: \S+ \S+$/)
      expect(lines[2]).toMatch(/^(INT|EXT)\. .+ - (DAY|NIGHT)$/)
      for (const line of lines) expect(line).not.toMatch(/\s$/)
    }
    const all = Object.values(files).join('\n')
    for (const ext of ['(V.O.)', '(O.S.)', "(CONT'D)"]) expect(all).toContain(ext)
    expect(all).toMatch(/^\(beat\)$/m)
  })

  it('its answer key is what an independent reader extracts from the text', () => {
    const { files, truth } = generateEpisodes()
    expect(extractAssets(files)).toEqual(truth)
    // Every character appears, every episode is somebody's, and some cues are unknown on purpose.
    expect(truth.characters.map(c => c.name)).toEqual(CAST.map(c => c.name))
    for (const c of truth.characters) expect(c.episodes.length).toBeGreaterThan(0)
    const covered = new Set(truth.characters.flatMap(c => c.episodes))
    expect(covered.size).toBe(60)
    expect(truth.unknownCues.length).toBeGreaterThan(0)
    expect(truth.locations.length).toBeGreaterThan(10)
    expect(truth.props.length).toBeGreaterThan(10)
  })

  it('refuses a bad count', () => {
    expect(() => generateEpisodes({ count: 0 })).toThrow(RangeError)
  })
})
