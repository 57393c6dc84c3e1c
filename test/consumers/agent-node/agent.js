// The agent runtime in Node, installed next to the oldest zod 4 the package allows (zod is a peer
// in spirit: a semver range, so an app's own zod 4.x is the one the tools use).
import { memoryStore, openVfs, scopeRun } from 'agent-vfs'
import { createWorkspaceTools, toolSpecs } from 'agent-vfs/agent'

const vfs = await openVfs({ store: memoryStore(), namespace: 'agent', scope: 's' })
const tools = createWorkspaceTools({ vfs: scopeRun(vfs, { runId: 'r' }) })
const specs = toolSpecs(tools)
const written = await tools.write_file.execute({ path: '/work/a.md', content: 'alpha\n' })
const grep = await tools.grep.execute({ pattern: 'alpha' })
const invalid = await tools.write_file.execute({ path: 42 }).then(
  () => 'accepted',
  e => e.message,
)
console.log(
  JSON.stringify({
    tools: specs.map(s => s.name).sort(),
    schema: specs.find(s => s.name === 'write_file').inputSchema.required,
    written,
    hits: grep.matches.length,
    invalid,
  }),
)
