import { fileURLToPath } from 'node:url'

/**
 * The package's entries mapped to their sources, for vitest (`resolve.alias`): inside this
 * repository `agent-vfs` and its subpaths mean the source, as tsconfig.json's `paths` say, so tests
 * and the secondary entries share one core module graph. Exact matches only: `agent-vfs` must not
 * swallow `agent-vfs/agent`.
 */
export function sourceEntries(overrides: Record<string, string> = {}): { find: RegExp; replacement: string }[] {
  const src = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))
  const entries: Record<string, string> = {
    'agent-vfs': src('src/index.ts'),
    'agent-vfs/agent': src('src/agent/index.ts'),
    'agent-vfs/mastra': src('src/mastra/index.ts'),
    'agent-vfs/run-js/workerd': src('src/run-js/runtime/workerd.ts'),
    'agent-vfs/run-js/typescript': src('src/run-js/runtime/typescript.ts'),
    'agent-vfs/session': src('src/session/index.ts'),
    'agent-vfs/run-js/node': src('src/run-js/node/index.ts'),
    'agent-vfs/worker': src('src/worker/index.ts'),
    // The package's private import of QuickJS for Node (package.json `imports`).
    '#quickjs-node': src('src/run-js/runtime/quickjs-node.ts'),
    ...overrides,
  }
  return Object.entries(entries).map(([name, path]) => ({ find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`), replacement: path }))
}
