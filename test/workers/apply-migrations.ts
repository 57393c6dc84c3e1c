import { applyD1Migrations } from 'cloudflare:test'
import { env } from 'cloudflare:workers'

// Each test file gets fresh storage, so the D1 schema is applied per file, from the same
// migration files `wrangler d1 migrations apply` uses.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS)
