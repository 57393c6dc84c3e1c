import { expect } from 'vitest'
import { connectMcpTools } from '../../src/mcp/index.js'
import { lenientServer } from './lenient-server.js'

/**
 * Arguments for a remote tool are checked against the schema its server published before they
 * leave (the SDK's workerd-safe validator, the same on every runtime): what does not fit never
 * reaches the server, and the model reads what is wrong. Run in Node and in workerd.
 */
export async function expectRemoteArgumentsValidated(): Promise<void> {
  const server = lenientServer()
  const mcp = await connectMcpTools({
    servers: [{ name: 'lenient', url: 'http://mcp.invalid/mcp', allow: ['set_level'] }],
    fetch: server.fetch,
  })
  try {
    const tool = mcp.tools.mcp_lenient_set_level
    for (const input of [
      {},
      { level: 50 },
      { level: 'high' },
      { level: 2.5 },
      { level: 3, note: 'x'.repeat(21) },
      { level: 3, extra: true },
    ]) {
      const error = await tool.execute(input).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect({ input, error }).toMatchObject({ input, error: { code: 'invalid-input', message: expect.stringMatching(/schema/) } })
    }
    expect(server.calls).toEqual([])
    expect(await tool.execute({ level: 3, note: 'fits' })).toBe('level set to 3')
    expect(server.calls).toEqual([{ level: 3, note: 'fits' }])
  } finally {
    await mcp.close()
  }
}
