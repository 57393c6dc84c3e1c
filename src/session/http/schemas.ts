import { z } from '@hono/zod-openapi'

/** Every error the API returns. */
export const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error')

export const SessionId = z
  .string()
  .regex(/^s[0-9a-f]{32}$/)
  .openapi({ param: { name: 'id', in: 'path' }, example: 's0123456789abcdef0123456789abcdef' })
export const IdParams = z.object({ id: SessionId })

export const Session = z
  .object({
    id: z.string(),
    owner: z.string(),
    profile: z.string(),
    title: z.string(),
    status: z.enum(['idle', 'running', 'waiting_input', 'waiting_approval', 'closed']),
    createdAt: z.number(),
    updatedAt: z.number(),
    closedAt: z.number().optional(),
    executionId: z.string().optional(),
    executions: z.number(),
  })
  .openapi('Session')

export const CreateSession = z
  .object({ profile: z.string().min(1).max(64), title: z.string().max(200).optional() })
  .strict()
  .openapi('CreateSession')
export const ListQuery = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
})
export const SessionPage = z.object({ items: z.array(Session), next: z.string().optional() }).openapi('SessionPage')

export const Message = z
  .object({
    n: z.number(),
    text: z.string(),
    mode: z.enum(['task', 'follow-up', 'steer']),
    at: z.number(),
    state: z.enum(['queued', 'delivered']).openapi({
      description:
        "queued: stored, not handed to an execution yet (a task or follow-up when its execution starts, at once if nothing runs; a steer at the running execution's next window); delivered: handed to `executionId`",
    }),
    executionId: z.string().optional(),
  })
  .openapi('Message')
export const SentMessage = Message.extend({
  session: z.object({ status: Session.shape.status, executionId: z.string().optional() }).openapi({
    description:
      'The session as the acknowledgement left it (what GET /sessions/{id} says from now on): `running` on the execution the message starts (its record appears when it starts) or resumes, or the status it waits in',
  }),
}).openapi('SentMessage')
export const SendMessage = z
  .object({ text: z.string().min(1).max(100_000), steer: z.boolean().optional() })
  .strict()
  .openapi('SendMessage')

export const PendingParams = z.object({
  id: SessionId,
  pendingId: z
    .string()
    .regex(/^e\d{4,}-(p\d+|proposal)$/)
    .openapi({ param: { name: 'pendingId', in: 'path' } }),
})
export const ProposalOutcome = z
  .object({ status: z.enum(['landed', 'discarded', 'empty']), version: z.number().optional() })
  .openapi('ProposalOutcome')
export const Answer = z
  .union(
    [
      z
        .object({
          decision: z.enum(['approve', 'always', 'deny'], { error: 'decision must be "approve", "always" or "deny"' }),
          message: z.string().max(2000).optional(),
        })
        .strict(),
      z.object({ answer: z.string().max(10_000) }).strict(),
    ],
    {
      error: 'send {"decision":"approve"|"always"|"deny"} (and an optional "message") for an approval, or {"answer":"…"} for a question',
    },
  )
  .openapi('Answer')
export const Pending = z
  .object({ id: z.string(), executionId: z.string(), kind: z.enum(['approval', 'question']), toolName: z.string() })
  .passthrough()
  .openapi('Pending')

export const ExecutionParams = z.object({
  id: SessionId,
  executionId: z
    .string()
    .regex(/^e\d{4,}$/)
    .openapi({ param: { name: 'executionId', in: 'path' } }),
})
export const Execution = z.object({ id: z.string(), status: z.string(), instructions: z.string() }).passthrough().openapi('Execution')

export const Event = z.object({ seq: z.number(), at: z.number(), type: z.string() }).passthrough().openapi('Event')
export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
})
export const StreamQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  /** `1`: also the live text of a running execution (`delta` messages without a sequence, never stored). */
  live: z.enum(['0', '1']).optional(),
})

export const FileQuery = z.object({ path: z.string().min(1).max(4096) })
export const ListFilesQuery = z.object({ prefix: z.string().max(4096).optional() })
export const FileEntry = z
  .object({ path: z.string(), size: z.number(), mtime: z.number(), version: z.number(), mimeType: z.string() })
  .openapi('FileEntry')
export const UploadQuery = z.object({ dir: z.string().max(4096).optional() })
export const Written = z.object({ paths: z.array(z.string()) }).openapi('Written')
export const Ok = z.object({ ok: z.literal(true) }).openapi('Ok')
