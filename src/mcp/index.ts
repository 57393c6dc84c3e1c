/**
 * agent-vfs/mcp: the Model Context Protocol, both ways, over `@modelcontextprotocol/sdk`.
 *
 * - Out: a session's workspace as a streamable-HTTP MCP server (`mountSessionMcp` on a session app,
 *   `workspaceMcpServer` over any workspace and tool set), live: resource subscriptions and a
 *   resumable stream of their notifications.
 * - In: tools of MCP servers for an agent profile (`connectMcpTools`), allow-listed by name.
 *
 * Only hosts and agent glue import this entry, so the SDK stays out of the core, the agent runtime
 * and the browser bundles.
 */
export { mountSessionMcp, sessionMcp, type SessionMcpOptions, type SessionMcpMount } from './server/session-mcp.js'
export { workspaceMcpServer, type WorkspaceMcpServerOptions } from './server/workspace-server.js'
export { serveStatelessMcp } from './server/stateless-http.js'
export { DEFAULT_LIVE_LIMITS, type LiveMcpLimits } from './server/live-clients.js'
export { RESOURCE_PREFIX, MAX_RESOURCE_BYTES, RESOURCES_PER_PAGE } from './server/resources.js'
export { connectMcpTools, type McpToolsOptions, type McpTools } from './client/connect.js'
export { runJsTools } from './client/run-js-bridge.js'
export type { McpServerConfig } from './client/config.js'
export { withMcpServers, type WithMcpServersOptions, type McpExecution } from './client/profile.js'
