/**
 * `#quickjs-node` outside Node, from the sources (package.json `imports`, condition `agent-vfs:source`):
 * nothing, so a browser or a Worker built from this repository (wrangler dev) never loads Node's
 * QuickJS copy. The published package has its built twin, dist/quickjs-none.js (scripts/build.mjs).
 */
export default undefined
