/**
 * `npm run import-folder`: a small real job on embedded defaults. Opens a persistent workspace on an embedded
 * PGlite store kept in `.agent-vfs/`, imports a folder into it, and reports files, bytes and a
 * grep. Run it twice: the second run finds the data already there and only writes what changed.
 *
 *   npm run import-folder -- [--import DIR] [--grep PATTERN] [--data DIR] [--scope NAME]
 */
// First: refuses to run anything but the sources (scripts/source-only.ts).
import './source-only.js'
import { PGlite } from '@electric-sql/pglite'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, relative, resolve, sep } from 'node:path'
import { parseArgs } from 'node:util'
import { openVfs, postgresStore } from 'agent-vfs'

const usage = `usage: npm run import-folder -- [--import DIR] [--grep PATTERN] [--data DIR] [--scope NAME]
  --import DIR     folder to import (default: examples/sample)
  --grep PATTERN   text to search for after the import (default: LANTERN)
  --data DIR       where the embedded PGlite database lives (default: .agent-vfs)
  --scope NAME     workspace scope (default: default)`

function options() {
  try {
    const { values } = parseArgs({
      options: {
        import: { type: 'string', default: 'examples/sample' },
        grep: { type: 'string', default: 'LANTERN' },
        data: { type: 'string', default: '.agent-vfs' },
        scope: { type: 'string', default: 'default' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    return values
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`)
    process.exit(2)
  }
}

/** Every regular file below `dir`, as POSIX paths relative to it. */
function listFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listFiles(full).map(p => `${entry.name}/${p}`))
    else if (entry.isFile()) out.push(entry.name)
  }
  return out
}

async function main() {
  const args = options()
  if (args.help) return console.log(usage)
  const source = resolve(args.import!)
  if (!existsSync(source) || !statSync(source).isDirectory()) {
    console.error(`--import: ${source} is not a folder. Give a folder of text files, e.g. --import examples/sample`)
    process.exit(2)
  }
  const dataDir = resolve(args.data!)
  mkdirSync(dataDir, { recursive: true })

  const t0 = performance.now()
  const db = await PGlite.create(join(dataDir, 'pglite'))
  const store = postgresStore({ client: db })
  await store.migrate()
  const vfs = await openVfs({ store, namespace: 'agent-vfs', scope: args.scope! })
  const opened = performance.now() - t0
  const target = `/imports/${basename(source)}`
  const before = (await vfs.exists(target)) ? (await vfs.glob(`${target}/**`)).length : 0
  console.log(
    `workspace ${args.scope} on PGlite in ${relative(process.cwd(), dataDir) || '.'}: opened in ${opened.toFixed(0)} ms, ${vfs.usage().files} files, ${vfs.usage().bytes} bytes`,
  )
  console.log(before > 0 ? `found ${before} files from a previous run under ${target}` : `first run: ${target} is empty`)

  // Issue every write at once: the journal group-commits them into a few transactions.
  const t1 = performance.now()
  const files = listFiles(source)
  let written = 0
  let unchanged = 0
  await Promise.all(
    files.map(async rel => {
      const path = `${target}/${rel.split(sep).join('/')}`
      const bytes = readFileSync(join(source, rel))
      if ((await vfs.exists(path)) && Buffer.compare(Buffer.from(await vfs.readFile(path)), bytes) === 0) return unchanged++
      written++
      await vfs.writeFile(path, new Uint8Array(bytes))
    }),
  )
  console.log(
    `imported ${files.length} files from ${source}: ${written} written, ${unchanged} already there unchanged (${(performance.now() - t1).toFixed(0)} ms)`,
  )

  const { files: count, bytes } = vfs.usage()
  console.log(`workspace now holds ${count} files, ${bytes} bytes`)
  const found = await vfs.grep(args.grep!, { paths: [target], maxMatches: 10 })
  console.log(
    `grep ${JSON.stringify(args.grep)}: ${found.matches.length}${found.truncated ? '+' : ''} matches in ${found.filesSearched} files`,
  )
  for (const m of found.matches) console.log(`  ${m.path}:${m.line}: ${m.text}`)
  await vfs.close()
  await db.close()
  console.log(
    before > 0
      ? 'the data was already there: this workspace persists across runs'
      : 'run `npm run import-folder` again: the second run finds this data already there',
  )
}

main().catch(error => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
