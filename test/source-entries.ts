import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The condition under which package.json `exports` names each entry's source (tsconfig `customConditions` too). */
export const SOURCE_CONDITION = 'agent-vfs:source'

/**
 * The package's entries mapped to their sources, for vitest and vite (`resolve.alias`): inside this
 * repository `agent-vfs` and its subpaths mean the source, as tsconfig.json says, so tests and the
 * secondary entries share one core module graph. Read from package.json `exports` (each entry's
 * `"agent-vfs:source"` target), so an entry is registered there and in scripts/build.mjs only.
 * Exact matches only: `agent-vfs` must not swallow `agent-vfs/agent`.
 */
export function sourceEntries(overrides: Record<string, string> = {}): { find: RegExp; replacement: string }[] {
  const root = new URL('../', import.meta.url)
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    name: string
    exports: Record<string, unknown>
  }
  const entries: Record<string, string> = {}
  const sourceOf = (target: unknown) =>
    typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[SOURCE_CONDITION] : undefined
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const source = sourceOf(target)
    if (typeof source === 'string') entries[pkg.name + subpath.slice(1)] = fileURLToPath(new URL(source, root))
  }
  // The package's private import of QuickJS for Node (package.json `imports`, whose `agent-vfs:source`
  // branch names the same file for Node; tsc sees only its declaration in src/runtimes/workerd/wasm.d.ts).
  entries['#quickjs-node'] = fileURLToPath(new URL('src/runtimes/quickjs-node/index.ts', root))
  Object.assign(entries, overrides)
  return Object.entries(entries).map(([name, path]) => ({
    find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
    replacement: path,
  }))
}
