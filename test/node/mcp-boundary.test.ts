import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { expect, it } from 'vitest'

const root = new URL('../../', import.meta.url).pathname

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

// The MCP SDK (and ajv, which it brings) stays in agent-vfs/mcp: the core, the agent runtime, the session
// host (which the demo's tab bundles) and agent-vfs/worker never import it, so a user who does not serve
// or call MCP bundles none of it. A Worker opts in with createEdgeApp({ mcp: sessionMcp(…) }).
it('only src/mcp imports @modelcontextprotocol/sdk or agent-vfs/mcp', () => {
  const offenders = sources(join(root, 'src'))
    .filter(f => !relative(root, f).startsWith('src/mcp/'))
    .filter(f => /from '(@modelcontextprotocol\/sdk[^']*|agent-vfs\/mcp)'/.test(readFileSync(f, 'utf8')))
    .map(f => relative(root, f))
  expect(offenders).toEqual([])
  expect(sources(join(root, 'src/mcp')).length).toBeGreaterThan(5)
})
