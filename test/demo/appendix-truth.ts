import type { EpisodeTruth } from '../../fixtures/script-appendix/generator.js'

/**
 * What the finished script-appendix run must show, derived from the generator's answer key (as
 * test/node/agent-appendix-example.test.ts checks it in Node): the outputs' JSON, and the list
 * items of /outputs/appendix.md as the preview renders them (Markdown emphasis gone, text kept).
 */
export function expectedOutputs(truth: EpisodeTruth, episodes: number) {
  const eps = (xs: number[]) => xs.join(', ')
  return {
    assets: { characters: truth.characters, locations: truth.locations, props: truth.props },
    coverage: { episodes, covered: Array.from({ length: episodes }, (_, i) => i + 1), missing: [] as number[] },
    summary: `Episodes: ${episodes}, covered: ${episodes}`,
    appendixItems: [
      ...truth.characters.map(
        c => `${c.name}${c.aliases.length ? ` (${c.aliases.join(', ')})` : ''}: ${c.lines} lines; episodes ${eps(c.episodes)}`,
      ),
      ...truth.locations.map(l => `${l.name}: episodes ${eps(l.episodes)}`),
      ...truth.props.map(p => `${p.name}: episodes ${eps(p.episodes)}`),
      ...truth.unknownCues.map(u => `warning: cue ${u.cue} matches no character in characters.md (episodes ${eps(u.episodes)})`),
    ],
  }
}
