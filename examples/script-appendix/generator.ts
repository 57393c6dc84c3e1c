import { ACTIONS, BIT_PARTS, CAST, DIALOGUE, LOCATIONS, PROPS, TITLE_WORDS } from './cast.js'

/** Options of {@link generateEpisodes}. */
export interface GenerateOptions {
  /** Number of episodes. Default 60. */
  count?: number
  /** Seed of the pseudo-random sequence; the same seed gives byte-identical files. Default 1. */
  seed?: number
}

/** What the generated scripts contain, computed while writing them: the answer key for tests. */
export interface EpisodeTruth {
  characters: Array<{ name: string; aliases: string[]; episodes: number[]; lines: number }>
  locations: Array<{ name: string; episodes: number[] }>
  props: Array<{ name: string; episodes: number[] }>
  /** Cues that match no character of `characters.md`, with the episodes they occur in. */
  unknownCues: Array<{ cue: string; episodes: number[] }>
}

/** The generated input folder. */
export interface GeneratedScripts {
  /** Relative path → text: `characters.md` and `episodes/episode-NN.fountain`. */
  files: Record<string, string>
  truth: EpisodeTruth
}

const EXTENSIONS = ['', '', '', '', '', ' (V.O.)', ' (O.S.)']
const PARENTHETICALS = ['(quietly)', '(beat)', '(not looking up)']

/**
 * Writes a deterministic set of episode scripts in the simplified Fountain format: `# Episode N:
 * Title`, scene headings (`INT.`/`EXT.` LOCATION ` - DAY|NIGHT`), character cues in capitals (an
 * alias or the canonical name, sometimes with `(V.O.)`, `(O.S.)`, `(CONT'D)`), optional
 * parentheticals, dialogue, and action lines in which props (and sometimes characters) are written
 * in capitals. Some cues are bit parts missing from `characters.md`. No runtime APIs beyond
 * the language: it runs in Node, browsers and Workers alike.
 */
export function generateEpisodes(options: GenerateOptions = {}): GeneratedScripts {
  const count = options.count ?? 60
  if (!Number.isInteger(count) || count < 1 || count > 999) throw new RangeError('count must be an integer from 1 to 999')
  const rand = mulberry32(options.seed ?? 1)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]
  const chars = new Map(CAST.map((c) => [c.name, { episodes: new Set<number>(), lines: 0 }]))
  const locs = new Map<string, Set<number>>()
  const props = new Map<string, Set<number>>()
  const unknown = new Map<string, Set<number>>()
  const files: Record<string, string> = { 'characters.md': charactersMd() }

  for (let ep = 1; ep <= count; ep++) {
    const out = [`# Episode ${ep}: ${pick(TITLE_WORDS.first)} ${pick(TITLE_WORDS.second)}`, '']
    // Each episode has a small ensemble so appearances differ between episodes.
    const ensemble = shuffle([...CAST], rand).slice(0, 3 + Math.floor(rand() * 3))
    const scenes = 2 + Math.floor(rand() * 4)
    for (let s = 0; s < scenes; s++) {
      const loc = pick(LOCATIONS)
      add(locs, loc.name, ep)
      out.push(`${loc.int ? 'INT.' : 'EXT.'} ${loc.name} - ${rand() < 0.5 ? 'DAY' : 'NIGHT'}`, '')
      let previous = ''
      const blocks = 2 + Math.floor(rand() * 5)
      for (let b = 0; b < blocks; b++) {
        if (b === 0 || rand() < 0.3) {
          const prop = pick(PROPS)
          add(props, prop, ep)
          const who = pick(ensemble)
          out.push(pick(ACTIONS).replace('{P}', prop).replace('{C}', rand() < 0.5 ? who.name : who.aliases[0]), '')
        }
        let cue: string
        if (rand() < 0.06) {
          cue = pick(BIT_PARTS)
          add(unknown, cue, ep)
          previous = ''
        } else {
          const who = pick(ensemble)
          const stats = chars.get(who.name)!
          stats.episodes.add(ep)
          stats.lines++
          cue = (rand() < 0.35 ? who.name : pick(who.aliases)) + (who.name === previous ? " (CONT'D)" : pick(EXTENSIONS))
          previous = who.name
        }
        out.push(cue)
        if (rand() < 0.15) out.push(pick(PARENTHETICALS))
        out.push(pick(DIALOGUE), '')
      }
    }
    files[`episodes/episode-${String(ep).padStart(2, '0')}.fountain`] = out.join('\n')
  }

  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b)
  return {
    files,
    truth: {
      characters: CAST.map((c) => ({ name: c.name, aliases: [...c.aliases], episodes: sorted(chars.get(c.name)!.episodes), lines: chars.get(c.name)!.lines })),
      locations: [...locs].map(([name, eps]) => ({ name, episodes: sorted(eps) })).sort((a, b) => a.name.localeCompare(b.name)),
      props: [...props].map(([name, eps]) => ({ name, episodes: sorted(eps) })).sort((a, b) => a.name.localeCompare(b.name)),
      unknownCues: [...unknown].map(([cue, eps]) => ({ cue, episodes: sorted(eps) })).sort((a, b) => a.cue.localeCompare(b.cue)),
    },
  }
}

/** `characters.md`: one line per canonical character, `- NAME: ALIAS, ALIAS`. */
export function charactersMd(): string {
  return ['# Characters', '', ...CAST.map((c) => `- ${c.name}: ${c.aliases.join(', ')}`), ''].join('\n')
}

function add(map: Map<string, Set<number>>, key: string, ep: number): void {
  let set = map.get(key)
  if (!set) map.set(key, (set = new Set()))
  set.add(ep)
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[xs[i], xs[j]] = [xs[j], xs[i]]
  }
  return xs
}

/** A small, fast, seedable PRNG (Mulberry32): the same seed gives the same sequence everywhere. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
