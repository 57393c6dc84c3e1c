/**
 * Writes the generated episode scripts to a folder:
 *   npx tsx examples/script-appendix/cli.ts [--out DIR] [--count N] [--seed S] [--truth]
 * `--truth` also writes `truth.json`, the answer key (keep it out of an agent's input folder).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { generateEpisodes } from './generator.js'

function main(argv: string[]): number {
  const args = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) return usage(`unexpected argument ${a}`)
    if (!['--out', '--count', '--seed', '--truth'].includes(a)) return usage(`unknown option ${a}`)
    const next = argv[i + 1]
    if (a === '--truth') args.set(a, true)
    else if (next === undefined || next.startsWith('--')) return usage(`${a} needs a value`)
    else args.set(a, argv[++i])
  }
  const out = resolve(String(args.get('--out') ?? 'examples/script-appendix/input'))
  const count = Number(args.get('--count') ?? 60)
  const seed = Number(args.get('--seed') ?? 1)
  if (!Number.isInteger(count) || count < 1 || count > 999) return usage('--count must be an integer from 1 to 999')
  if (!Number.isInteger(seed)) return usage('--seed must be an integer')
  const { files, truth } = generateEpisodes({ count, seed })
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(out, path)), { recursive: true })
    writeFileSync(join(out, path), text)
  }
  if (args.has('--truth')) writeFileSync(join(out, 'truth.json'), JSON.stringify(truth, null, 2) + '\n')
  console.log(`wrote ${Object.keys(files).length - 1} episodes and characters.md to ${out}`)
  return 0
}

function usage(problem: string): number {
  console.error(`${problem}\nusage: npx tsx examples/script-appendix/cli.ts [--out DIR] [--count N] [--seed S] [--truth]`)
  return 2
}

process.exitCode = main(process.argv.slice(2))
