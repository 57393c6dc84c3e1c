// The entries that need an optional peer dependency (package.json `peerDependenciesMeta`), and the
// file Node imports for each: it loads the entry and, when a peer is not installed, names it with the
// command that installs it, instead of Node's "Cannot find package … imported from …/dist/mcp.js".
// Bundlers (the `module` condition) and require() take the entry itself: the check needs a top-level
// await, which a CommonJS bundle or require() cannot have, and a bundler reports a missing package
// at build time anyway. Used by scripts/build.mjs; package.json `exports` names the files.
import { writeFileSync } from 'node:fs'

/** Entry (its `out` in the build list) → the optional peers it loads at run time. */
export const OPTIONAL_PEERS = {
  mcp: ['@modelcontextprotocol/sdk', '@cfworker/json-schema'],
  session: ['hono', '@hono/zod-openapi'],
  mastra: ['@mastra/core'],
  bash: ['just-bash'],
  react: ['react'],
}

/** `dist/<out>-node.js`, the checked file of one entry: `names` are the entry's run-time exports. */
export function writePeerCheckedEntry(pkg, out, names) {
  const subpath = `${pkg.name}/${out}`
  // The versions this package is built and tested with (its devDependencies), for the install command.
  const install = Object.fromEntries(OPTIONAL_PEERS[out].map(peer => [peer, `${peer}@${pkg.devDependencies[peer]}`]))
  const named = names.filter(n => n !== 'default')
  writeFileSync(
    `dist/${out}-node.js`,
    `// ${subpath} as Node imports it (scripts/optional-peers.mjs): dist/${out}.js, loaded so that a missing
// optional peer dependency is named with the command that installs it.
const INSTALL = ${JSON.stringify(install)}
let entry
try {
  entry = await import('./${out}.js')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !Object.keys(INSTALL).some(p => String(error.message).includes(\`'\${p}'\`))) throw error
  // Every peer of this entry that is not installed, in one command.
  const missing = Object.keys(INSTALL).filter(peer => {
    try {
      import.meta.resolve(peer)
      return false
    } catch (e) {
      return e?.code === 'ERR_MODULE_NOT_FOUND'
    }
  })
  const named = missing.length ? missing : Object.keys(INSTALL)
  const needs = new Error(
    \`${subpath} needs \${named.join(' and ')}: npm install \${named.map(p => INSTALL[p]).join(' ')}\`,
    { cause: error },
  )
  needs.code = 'ERR_MODULE_NOT_FOUND'
  throw needs
}
export const { ${named.join(', ')} } = entry
${names.includes('default') ? 'export default entry.default\n' : ''}`,
  )
}

/** package.json `exports` of an entry with optional peers: Node's import takes the checked file. */
export function checkedExports(out) {
  return { module: `./dist/${out}.js`, require: `./dist/${out}.js`, node: `./dist/${out}-node.js`, default: `./dist/${out}.js` }
}
