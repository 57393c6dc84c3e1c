import type { EpisodeTruth } from '../../fixtures/script-appendix/generator.js'

/**
 * A reference reader of the simplified Fountain format, independent of the generator: it derives
 * the assets from the text alone, so a test can check that the generator's answer key is what a
 * correct extraction finds.
 */
export function extractAssets(files: Record<string, string>): EpisodeTruth {
  const cast = files['characters.md']
    .split('\n')
    .filter(l => l.startsWith('- '))
    .map(l => {
      const [name, aliases] = l.slice(2).split(':')
      return {
        name: name.trim(),
        aliases: aliases
          .split(',')
          .map(a => a.trim())
          .filter(Boolean),
      }
    })
  const canonical = new Map<string, string>()
  for (const c of cast) for (const n of [c.name, ...c.aliases]) canonical.set(n, c.name)
  const chars = new Map(cast.map(c => [c.name, { episodes: new Set<number>(), lines: 0 }]))
  const locs = new Map<string, Set<number>>()
  const props = new Map<string, Set<number>>()
  const unknown = new Map<string, Set<number>>()
  const add = (m: Map<string, Set<number>>, k: string, ep: number) => (m.get(k) ?? m.set(k, new Set()).get(k)!).add(ep)

  for (const [path, text] of Object.entries(files)) {
    if (!path.endsWith('.fountain')) continue
    const lines = text.split('\n')
    const ep = Number(/^# Episode (\d+):/.exec(lines[0])![1])
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]
      if (line.trim() === '') continue
      const heading = /^(INT|EXT)\. (.+) - (DAY|NIGHT)$/.exec(line)
      if (heading) {
        add(locs, heading[2], ep)
        continue
      }
      const isCue = /^[A-Z][A-Z .'#-]*[A-Z.](?: \((?:V\.O\.|O\.S\.|CONT'D)\))?$/.test(line) && (lines[i + 1] ?? '').trim() !== ''
      if (isCue) {
        const cue = line.replace(/ \(.*\)$/, '')
        const name = canonical.get(cue)
        if (name) {
          chars.get(name)!.episodes.add(ep)
          chars.get(name)!.lines++
        } else add(unknown, cue, ep)
        i++ // the dialogue (or a parenthetical, then the dialogue)
        if (/^\(.*\)$/.test(lines[i])) i++
        continue
      }
      // An action line: runs of capitalised words are characters (known names) or props.
      for (const m of line.matchAll(/\b[A-Z][A-Z.'-]+(?: [A-Z][A-Z.'-]+)*/g)) {
        // A sentence may end right after a prop; "DR. MORROW" keeps its inner period.
        const words = canonical.has(m[0]) ? m[0] : m[0].replace(/\.$/, '')
        if (!canonical.has(words)) add(props, words, ep)
      }
    }
  }
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b)
  return {
    characters: cast.map(c => ({
      name: c.name,
      aliases: c.aliases,
      episodes: sorted(chars.get(c.name)!.episodes),
      lines: chars.get(c.name)!.lines,
    })),
    locations: [...locs].map(([name, e]) => ({ name, episodes: sorted(e) })).sort((a, b) => a.name.localeCompare(b.name)),
    props: [...props].map(([name, e]) => ({ name, episodes: sorted(e) })).sort((a, b) => a.name.localeCompare(b.name)),
    unknownCues: [...unknown].map(([cue, e]) => ({ cue, episodes: sorted(e) })).sort((a, b) => a.cue.localeCompare(b.cue)),
  }
}
