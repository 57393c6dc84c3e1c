-- What each session spent (tokens, model and tool calls, run_js CPU time, bytes written; JSON): what
-- GET /usage and an owner's budget sum (src/worker/d1-owner-index.ts, setUsage). Apply: wrangler d1 migrations apply <db> [--local]

ALTER TABLE sessions ADD COLUMN usage TEXT;
