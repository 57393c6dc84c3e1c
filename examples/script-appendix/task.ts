import { z } from 'zod'
import type { RunVfs, Vfs } from 'agent-vfs'
import type { PolicyRule, ResultContract } from 'agent-vfs/agent'

/** The task as the model is told it. */
export const APPENDIX_INSTRUCTIONS = [
  'Write a production appendix for the season in /context.',
  'Inputs: /context/characters.md (canonical characters and their aliases) and /context/episodes/*.fountain.',
  'Outputs in /outputs: appendix.md; assets.json with characters[{ name, aliases, episodes, lines }],',
  'locations[{ name, episodes }] and props[{ name, episodes }]; coverage.json { episodes, covered, missing };',
  'validation.json { checks, problems, pass } (report cues that match no known character).',
  'Submit assets.json as the result. Use run_js programs for the bulk work.',
].join('\n')

/** A file tool writing outside /work needs approval; a run_js program writing outside /work gets EACCES instead (it cannot wait for a person). */
export const ASK_OUTSIDE_WORK: PolicyRule = { decision: 'ask', access: 'write', exceptPaths: ['/work/**'], reason: 'writes outside /work need approval' }

/** Lets run_js programs write anywhere but /state; put it before {@link ASK_OUTSIDE_WORK} (the first matching rule decides). */
export const ALLOW_RUN_JS: PolicyRule = { decision: 'allow', tools: ['run_js'], reason: 'the job runs run_js programs without approval' }
/** Asks a person before each run_js program (answering "always" saves an allow rule). */
export const ASK_RUN_JS: PolicyRule = { decision: 'ask', tools: ['run_js'], reason: 'a person approves each run_js program' }

/** The follow-up message of the example session. */
export const FOLLOW_UP_INSTRUCTIONS = 'Add an index of characters by location to /outputs/characters-by-location.md.'

const named = z.object({ name: z.string().min(1), episodes: z.array(z.number().int().positive()) })

/** Shape of /outputs/assets.json. */
export const assetsSchema = z.object({
  characters: z.array(named.extend({ aliases: z.array(z.string()), lines: z.number().int().nonnegative() })),
  locations: z.array(named),
  props: z.array(named),
})

/** The parsed content of assets.json. */
export type Assets = z.infer<typeof assetsSchema>

const coverageSchema = z.object({ episodes: z.number().int(), covered: z.array(z.number().int()), missing: z.array(z.number().int()) })

/** Episode numbers of the input, from each file's `# Episode N:` heading. */
export async function episodeNumbers(vfs: Vfs): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  for (const path of await vfs.glob('/context/episodes/*.fountain')) {
    const head = /^# Episode (\d+):/.exec(await vfs.readFile(path, 'utf8'))
    if (head) out.set(Number(head[1]), path)
  }
  return out
}

/**
 * The contract: assets.json has the right shape, every episode is covered (listed by at least one
 * location, which every episode with a scene has), every reference points at a real episode,
 * coverage.json agrees, and the other outputs exist.
 */
export const appendixContract: ResultContract<Assets> = {
  description: 'assets.json covering every episode; references only to real episodes; coverage.json, validation.json and appendix.md present',
  schema: assetsSchema,
  resultPath: '/outputs/assets.json',
  checks: [
    async (assets, { vfs }) => {
      const real = await episodeNumbers(vfs)
      const problems: string[] = []
      const listed = new Set(assets.locations.flatMap((l) => l.episodes))
      for (const [n, path] of real) if (!listed.has(n)) problems.push(`episode ${n} (${path}) is not covered: no location lists it`)
      for (const kind of ['characters', 'locations', 'props'] as const) {
        for (const a of assets[kind]) for (const n of a.episodes) if (!real.has(n)) problems.push(`${kind} "${a.name}" refers to episode ${n}, which does not exist`)
      }
      return problems
    },
    async (_assets, { vfs }) => {
      const problems: string[] = []
      for (const f of ['appendix.md', 'coverage.json', 'validation.json']) if (!(await vfs.exists(`/outputs/${f}`))) problems.push(`/outputs/${f} is missing`)
      if (problems.length > 0) return problems
      const coverage = coverageSchema.safeParse(JSON.parse(await vfs.readFile('/outputs/coverage.json', 'utf8')))
      if (!coverage.success) return ['/outputs/coverage.json does not have the shape { episodes, covered, missing }']
      const real = await episodeNumbers(vfs)
      if (coverage.data.episodes !== real.size) problems.push(`coverage.json says ${coverage.data.episodes} episodes, the input has ${real.size}`)
      if (coverage.data.missing.length > 0) problems.push(`coverage.json lists missing episodes: ${coverage.data.missing.join(', ')}`)
      return problems
    },
  ],
}

/** Copies a generated (or read) input folder into a run's read-only /context. */
export async function seedInput(run: RunVfs, files: Record<string, string>): Promise<void> {
  // Issued together, so the journal makes the whole input one commit instead of one per file.
  await Promise.all(Object.entries(files).map(([path, text]) => run.seed(`/context/${path}`, text)))
}
