-- Whether a session runs an execution now: what an owner's `maxRunningExecutions` quota counts
-- (src/worker/d1-owner-index.ts, setRunning). Apply: wrangler d1 migrations apply <db> [--local]

ALTER TABLE sessions ADD COLUMN running INTEGER NOT NULL DEFAULT 0;
