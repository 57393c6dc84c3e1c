import { createRoute, z } from '@hono/zod-openapi'
import { changeRoutes } from './change-routes.js'
import { Conflicts } from './change-schemas.js'
import { body, errorResponses, json, security } from './route-parts.js'
import * as S from './schemas.js'

const errors = {
  ...errorResponses('No such session (or it belongs to another owner)'),
  409: json(S.ErrorBody, 'The session is not in a state that allows this'),
}

/**
 * The API's route table: every route, with its validation schemas and responses. The app, the
 * OpenAPI document and the tests (which call every route) all come from it.
 */
export const sessionRoutes = {
  createSession: createRoute({
    method: 'post',
    summary: 'Create a session',
    path: '/sessions',
    security,
    request: body(S.CreateSession),
    responses: { 201: json(S.Session, 'Created'), ...errors, 413: json(S.ErrorBody, 'Over quota') },
  }),
  listSessions: createRoute({
    method: 'get',
    summary: 'List your sessions, newest first',
    path: '/sessions',
    security,
    request: { query: S.ListQuery },
    responses: { 200: json(S.SessionPage, 'Newest first'), ...errors },
  }),
  getSession: createRoute({
    method: 'get',
    summary: 'Get a session',
    path: '/sessions/{id}',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(S.Session, 'The session'), ...errors },
  }),
  closeSession: createRoute({
    method: 'post',
    summary: 'Close a session',
    path: '/sessions/{id}/close',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(S.Session, 'Closed'), ...errors },
  }),
  reopenSession: createRoute({
    method: 'post',
    summary: 'Reopen a closed session',
    path: '/sessions/{id}/reopen',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(S.Session, 'Reopened'), ...errors },
  }),
  deleteSession: createRoute({
    method: 'delete',
    summary: 'Delete a session and its data',
    path: '/sessions/{id}',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(S.Ok, 'Deleted'), ...errors },
  }),
  listFiles: createRoute({
    method: 'get',
    summary: 'List the workspace files',
    path: '/sessions/{id}/files',
    security,
    request: { params: S.IdParams, query: S.ListFilesQuery },
    responses: { 200: json(z.array(S.FileEntry), 'Files'), ...errors },
  }),
  uploadFiles: createRoute({
    method: 'post',
    summary: 'Upload many files in one commit',
    path: '/sessions/{id}/files',
    security,
    request: {
      params: S.IdParams,
      query: S.UploadQuery,
      body: { content: { 'multipart/form-data': { schema: z.object({ file: z.any() }) } }, required: true },
    },
    responses: {
      201: json(S.Written, "Written in one commit; each part's filename is its path relative to `dir` (default /context)"),
      ...errors,
      413: json(S.ErrorBody, 'Too large or over quota'),
    },
  }),
  putFile: createRoute({
    method: 'put',
    summary: 'Write one file',
    path: '/sessions/{id}/file',
    security,
    request: {
      params: S.IdParams,
      query: S.FileQuery,
      body: { content: { 'application/octet-stream': { schema: z.any() } }, required: true },
    },
    responses: { 201: json(S.Written, 'Written'), ...errors, 413: json(S.ErrorBody, 'Too large or over quota') },
  }),
  getFile: createRoute({
    method: 'get',
    summary: 'Read one file (Range, ETag)',
    path: '/sessions/{id}/file',
    security,
    request: { params: S.IdParams, query: S.FileQuery },
    responses: {
      200: { description: 'The content; supports Range and If-None-Match (quoted ETag)' },
      206: { description: 'A range' },
      304: { description: 'Not modified' },
      416: json(S.ErrorBody, 'Range not satisfiable'),
      ...errors,
    },
  }),
  deleteFile: createRoute({
    method: 'delete',
    summary: 'Delete one file',
    path: '/sessions/{id}/file',
    security,
    request: { params: S.IdParams, query: S.FileQuery },
    responses: { 200: json(S.Ok, 'Deleted'), ...errors },
  }),
  sendMessage: createRoute({
    method: 'post',
    summary: 'Send a message: a task, a follow-up or a steer',
    path: '/sessions/{id}/messages',
    security,
    request: { params: S.IdParams, ...body(S.SendMessage) },
    responses: {
      202: json(S.SentMessage, 'Accepted and stored: it starts an execution, waits for the running one to end, or (steer) goes to it'),
      ...errors,
    },
  }),
  listMessages: createRoute({
    method: 'get',
    summary: 'List the messages',
    path: '/sessions/{id}/messages',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(z.array(S.Message), 'Messages, oldest first'), ...errors },
  }),
  abort: createRoute({
    method: 'post',
    summary: 'Abort the running execution',
    path: '/sessions/{id}/abort',
    security,
    request: { params: S.IdParams },
    responses: { 202: json(S.Ok, 'Recorded; the execution stops at its next model or tool call'), ...errors },
  }),
  resume: createRoute({
    method: 'post',
    summary: 'Resume an aborted execution',
    path: '/sessions/{id}/resume',
    security,
    request: { params: S.IdParams },
    responses: { 202: json(S.Ok, 'Resuming'), ...errors },
  }),
  listPending: createRoute({
    method: 'get',
    summary: 'List the pending approvals and questions',
    path: '/sessions/{id}/pending',
    security,
    request: { params: S.IdParams },
    responses: {
      200: json(
        z.array(S.Pending),
        "Unanswered approvals and questions; an ended execution's proposal (`e0001-proposal`, toolName `apply_changes`) carries `proposal: { branch, baseVersion, diff }`",
      ),
      ...errors,
    },
  }),
  answerPending: createRoute({
    method: 'post',
    summary: 'Answer an approval or a question',
    path: '/sessions/{id}/pending/{pendingId}',
    security,
    request: { params: S.PendingParams, ...body(S.Answer) },
    responses: {
      200: json(S.ProposalOutcome, "A proposal's outcome: landed as one commit (`version`), or discarded"),
      202: json(S.Ok, 'Answered; the execution continues'),
      ...errors,
      409: json(
        Conflicts,
        'The session is not in a state that allows this; or a proposal was approved but the workspace changed since: nothing was written, `conflicts` lists them (the branch stays)',
      ),
    },
  }),
  listExecutions: createRoute({
    method: 'get',
    summary: 'List the executions',
    path: '/sessions/{id}/executions',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(z.array(S.Execution), 'Executions, oldest first'), ...errors },
  }),
  getExecution: createRoute({
    method: 'get',
    summary: 'Get an execution and its events',
    path: '/sessions/{id}/executions/{executionId}',
    security,
    request: { params: S.ExecutionParams },
    responses: {
      200: json(z.object({ record: S.Execution, events: z.array(z.unknown()) }), 'The record and its own events'),
      ...errors,
    },
  }),
  listEvents: createRoute({
    method: 'get',
    summary: 'Read stored events',
    path: '/sessions/{id}/events',
    security,
    request: { params: S.IdParams, query: S.EventsQuery },
    responses: { 200: json(z.object({ events: z.array(S.Event) }), 'Stored events with seq > after'), ...errors },
  }),
  streamEvents: createRoute({
    method: 'get',
    summary: 'Stream events (Server-Sent Events)',
    path: '/sessions/{id}/stream',
    security,
    request: { params: S.IdParams, query: S.StreamQuery },
    responses: {
      200: {
        content: { 'text/event-stream': { schema: z.string() } },
        description:
          'SSE: `id:` is the sequence; Last-Event-ID (or ?after=) resumes; `: heartbeat` comments. With ?live=1 also `event: delta` messages without an id: the live text of a running execution (`{ streamId, kind, at, delta }`: text = text.slice(0, at) + delta; the stored `text` event with the same streamId replaces it)',
      },
      ...errors,
    },
  }),
  streamWebSocket: createRoute({
    method: 'get',
    summary: 'Stream events over a WebSocket',
    path: '/sessions/{id}/ws',
    security,
    request: { params: S.IdParams, query: S.StreamQuery },
    responses: {
      101: {
        description:
          'WebSocket (Upgrade: websocket): each server message is one event as JSON text (the `data` of the SSE stream, with its `seq`), first every stored event with seq > after, then live ones; the server closes (1000) after `session-closed`. Send the text `ping` to get `pong`. A browser, which cannot set headers on a WebSocket, may send the token as the subprotocol `bearer.<jwt>` next to `agent-vfs`.',
      },
      426: json(S.ErrorBody, 'Not a WebSocket upgrade request'),
      501: json(S.ErrorBody, 'This host serves no WebSockets (use /stream)'),
      ...errors,
    },
  }),
  // The workspace's history (history, diff, revert, fork, branches): their own block, change-routes.ts.
  ...changeRoutes,
} as const

export type SessionRouteName = keyof typeof sessionRoutes
