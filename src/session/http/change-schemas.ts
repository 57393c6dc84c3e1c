import { z } from '@hono/zod-openapi'
import { SessionId } from './schemas.js'

/**
 * A point of a session's workspace history, as a query value: `12` (the workspace right after its
 * commit of version 12), `seq:40` (as it was when event 40 was logged), `e0001:start` / `e0001:end`
 * (before an execution's first change, after its last), `e0001:checkpoint:3` (when the execution's
 * checkpoint of plan revision 3 was written).
 */
export const PointText = z
  .string()
  .max(64)
  .regex(/^(?:\d{1,15}|seq:\d{1,15}|e\d{4,12}:(?:start|end|checkpoint:\d{1,9}))$/, {
    error: 'a point is a version (12), seq:<event sequence>, <executionId>:start|end or <executionId>:checkpoint:<revision>',
  })
  .openapi({ example: 'e0001:start' })

export const HistoryQuery = z.object({
  path: z.string().min(1).max(4096).optional(),
  execution: z
    .string()
    .regex(/^e\d{4,12}$/)
    .optional(),
  after: z.coerce.number().int().min(0).optional(),
  upTo: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
})

export const DiffQuery = z.object({
  from: PointText.optional(),
  to: PointText.optional(),
  /** Shorthand for from=<id>:start&to=<id>:end. */
  execution: z
    .string()
    .regex(/^e\d{4,12}$/)
    .optional(),
  path: z.string().min(1).max(4096).optional(),
  patches: z.enum(['0', '1', 'false', 'true']).optional(),
})

const Change = z
  .object({ path: z.string(), op: z.enum(['put', 'delete']), versionBefore: z.number(), versionAfter: z.number(), size: z.number() })
  .passthrough()
  .openapi('HistoryChange')
export const History = z
  .object({ entries: z.array(z.object({ version: z.number(), time: z.number(), changes: z.array(Change) })) })
  .openapi('History')

export const Diff = z
  .object({
    from: z.number(),
    to: z.number(),
    entries: z.array(
      z
        .object({
          path: z.string(),
          status: z.enum(['added', 'changed', 'deleted', 'moved']),
          binary: z.boolean(),
          patch: z.string().optional(),
        })
        .passthrough(),
    ),
  })
  .openapi('Diff')

export const Landed = z.object({ version: z.number(), changes: z.array(Change) }).openapi('Landed')
export const Conflicts = z
  .object({
    error: z.object({ code: z.literal('conflict'), message: z.string() }),
    conflicts: z.array(z.object({ path: z.string(), expected: z.number(), found: z.number(), message: z.string() })),
  })
  .openapi('Conflicts')

export const ForkBody = z
  .object({
    at: z.union([
      z.object({ seq: z.number().int().min(0).max(1e15) }).strict(),
      z
        .object({
          checkpoint: z
            .object({
              execution: z.string().regex(/^e\d{4,12}$/),
              revision: z.number().int().min(0).max(1e9),
            })
            .strict(),
        })
        .strict(),
    ]),
    title: z.string().max(200).optional(),
  })
  .strict()
  .openapi('Fork')

export const BranchName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/)
  .openapi({ param: { name: 'name', in: 'path' } })
export const BranchParams = z.object({ id: SessionId, name: BranchName })
export const Branch = z.object({ name: z.string(), baseVersion: z.number() }).passthrough().openapi('Branch')
