/**
 * Imported first by every script a person starts (npm start, serve, dev, dev:worker, import-folder):
 * stops it when `agent-vfs` would not be the sources, e.g. `npx tsx scripts/serve.ts` with a dist/
 * from an older build beside it, which would otherwise run that old code silently. Modules run in
 * import order, so this check runs before any module of the package does.
 */
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SOURCE_NODE_ARGS } from './from-source.js'

const resolved = import.meta.resolve('agent-vfs')
const source = new URL('../src/index.ts', import.meta.url).href
if (resolved !== source) {
  const script = relative(process.cwd(), process.argv[1] ?? 'the script')
  console.error(
    `${script} runs from the sources, but here \`agent-vfs\` is ${fileURLToPath(resolved)} (a build, possibly old). ` +
      `Start it through npm (npm start, npm run serve, …) or as: node ${SOURCE_NODE_ARGS.join(' ')} ${script}`,
  )
  process.exit(2)
}
