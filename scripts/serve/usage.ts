import type { CliSpec } from '../cli-options.js'

/** `npm run serve`'s options (scripts/serve.ts says what each does; docs/limits.md, docs/usage-budgets.md). */
export const SERVE_CLI: CliSpec = {
  command: 'npm run serve',
  options: {
    'max-sessions': 'string',
    'max-bytes': 'string',
    'max-running': 'string',
    'max-streams': 'string',
    'max-json-bytes': 'string',
    'max-upload-bytes': 'string',
    'run-js-threads': 'string',
    'execution-budget': 'string',
    'owner-budget': 'string',
    'mcp-origins': 'string',
  },
  usage: `usage: npm run serve -- [options]          (options after --, or npm keeps them)
  --max-sessions N        sessions per owner (100; none or 0 lifts it)      env AGENT_VFS_MAX_SESSIONS
  --max-bytes N           workspace bytes per owner (1 GiB)                 env AGENT_VFS_MAX_BYTES
  --max-running N         executions running at once per owner (4)          env AGENT_VFS_MAX_RUNNING
  --max-streams N         event streams per owner (50)                      env AGENT_VFS_MAX_STREAMS
  --max-json-bytes N      JSON request body (1 MiB)                         env AGENT_VFS_MAX_JSON_BYTES
  --max-upload-bytes N    upload request body (20 MiB)                      env AGENT_VFS_MAX_UPLOAD_BYTES
  --run-js-threads N      run_js worker threads (parallelism, 1 to 8; 0: this thread)  env AGENT_VFS_RUN_JS_THREADS
  --execution-budget JSON e.g. '{"modelCalls":50}'                          env AGENT_VFS_EXECUTION_BUDGET
  --owner-budget JSON     e.g. '{"tokens":2000000}'                         env AGENT_VFS_OWNER_BUDGET
  --mcp-origins LIST      browser origins allowed on /sessions/{id}/mcp (none)  env AGENT_VFS_MCP_ORIGINS
env: PORT (8787), DATABASE_URL (else PGlite in AGENT_VFS_DATA, .agent-vfs), AGENT_VFS_JWT_SECRET,
  LEASE_MS (15000), MODEL_DELAY_MS (0), OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL`,
}
