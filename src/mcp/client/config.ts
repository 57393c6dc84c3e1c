/** One MCP server a profile names: where it is, how to authenticate, which of its tools the agent may call. */
export interface McpServerConfig {
  /** Short name: the agent sees the server's tool `search` as `mcp_<name>_search`. Letters, digits, `_` and `-`. */
  name: string
  /** The server's streamable-HTTP endpoint, e.g. `https://docs.example.com/mcp`. */
  url: string
  /** Sent with every request, e.g. `{ authorization: \`Bearer ${env.DOCS_TOKEN}\` }` (a secret from the host's environment). */
  headers?: Record<string, string>
  /** The server's tools the agent may call, by their name on the server. Every one must exist (checked when connecting). */
  allow: string[]
  /** Longest one call may take, in ms; the run's own signal (its deadline, an abort) ends it sooner. Default 30 s. */
  timeoutMs?: number
  /** Longest result handed to the model, in characters of text. Default 100,000. */
  maxResultChars?: number
}

export const DEFAULT_CALL_TIMEOUT_MS = 30_000
export const DEFAULT_MAX_RESULT_CHARS = 100_000
/** Largest input schema of one remote tool, as JSON text (it goes to the model with every request). */
export const MAX_SCHEMA_CHARS = 20_000

const NAME = /^[A-Za-z0-9_-]{1,24}$/

/** Checks a profile's server list before anything connects, with messages that say what to fix. */
export function checkServers(servers: readonly McpServerConfig[]): void {
  if (!Array.isArray(servers) || servers.length === 0) throw new TypeError('connectMcpTools needs { servers: [{ name, url, allow }] }')
  const names = new Set<string>()
  for (const s of servers) {
    if (!NAME.test(s?.name ?? ''))
      throw new TypeError(`an MCP server's name is 1-24 letters, digits, _ or -; got ${JSON.stringify(s?.name)}`)
    if (names.has(s.name)) throw new TypeError(`two MCP servers are named ${JSON.stringify(s.name)}`)
    names.add(s.name)
    let url: URL
    try {
      url = new URL(s.url)
    } catch {
      throw new TypeError(`MCP server ${s.name}: url must be an absolute http(s) URL, got ${JSON.stringify(s.url)}`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new TypeError(`MCP server ${s.name}: url must be http(s), got ${url.protocol}`)
    if (!Array.isArray(s.allow) || s.allow.length === 0 || s.allow.some((t: unknown) => typeof t !== 'string' || t === ''))
      throw new TypeError(`MCP server ${s.name}: allow lists the tools the agent may call, by name (at least one)`)
    for (const [key, ms] of [
      ['timeoutMs', s.timeoutMs],
      ['maxResultChars', s.maxResultChars],
    ] as const)
      if (ms !== undefined && (!Number.isSafeInteger(ms) || ms < 1))
        throw new TypeError(`MCP server ${s.name}: ${key} must be a positive whole number`)
  }
}

/** The agent's name of a server's tool: `mcp_<server>_<tool>`, reduced to what model APIs accept (64 of `[A-Za-z0-9_-]`). */
export function agentToolName(server: string, tool: string): string {
  return `mcp_${server}_${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64)
}
