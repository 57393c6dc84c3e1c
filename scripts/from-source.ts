/**
 * How this repository's scripts run: from the sources, never from dist/. A clone has no dist/, and an
 * old one would run old code without a word. package.json `exports` and `imports` name each entry's
 * source under the condition below; Node picks it with `--conditions`, and tsx loads the TypeScript.
 * The npm scripts (start, serve, dev, dev:worker, import-folder), the benches and the tests that
 * spawn a script all start Node with SOURCE_NODE_ARGS.
 */
export const SOURCE_CONDITION = 'agent-vfs:source'

/** Node's options before a script's path: `node ${SOURCE_NODE_ARGS.join(' ')} scripts/serve.ts`. */
export const SOURCE_NODE_ARGS = [`--conditions=${SOURCE_CONDITION}`, '--import', 'tsx']
