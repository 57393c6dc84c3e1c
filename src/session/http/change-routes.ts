import { createRoute, z } from '@hono/zod-openapi'
import * as C from './change-schemas.js'
import { body, errorResponses, json, security } from './route-parts.js'
import * as S from './schemas.js'

const errors = errorResponses('No such session, execution, point or branch (or the session belongs to another owner)')

/**
 * The routes of a session's workspace history: what changed, diffs between two points, undoing an
 * execution, forks, branches. Their own block of the route table (routes.ts spreads it in).
 */
export const changeRoutes = {
  history: createRoute({
    method: 'get',
    summary: "The workspace's change history (of the session, of a path, of an execution)",
    path: '/sessions/{id}/history',
    security,
    request: { params: S.IdParams, query: C.HistoryQuery },
    responses: { 200: json(C.History, 'Commits, oldest first, each with the paths it changed and who changed them'), ...errors },
  }),
  diff: createRoute({
    method: 'get',
    summary: 'What changed between two points (default: from the start to now)',
    path: '/sessions/{id}/diff',
    security,
    request: { params: S.IdParams, query: C.DiffQuery },
    responses: { 200: json(C.Diff, 'Files added, changed, moved, deleted; line patches for text'), ...errors },
  }),
  revertExecution: createRoute({
    method: 'post',
    summary: "Undo an execution's changes in one commit",
    path: '/sessions/{id}/executions/{executionId}/revert',
    security,
    request: { params: S.ExecutionParams },
    responses: {
      200: json(C.Landed, 'Undone in one commit (redo: revert again is not offered; undo the revert through the API user)'),
      409: json(C.Conflicts, 'A file changed since the execution: nothing was written'),
      ...errors,
    },
  }),
  fork: createRoute({
    method: 'post',
    summary: 'Fork the session at an event or a checkpoint',
    path: '/sessions/{id}/fork',
    security,
    request: { params: S.IdParams, ...body(C.ForkBody) },
    responses: {
      201: json(S.Session, "A new session of the same owner: its workspace is the original's at that point, its events those up to it"),
      413: json(S.ErrorBody, "Over the owner's quota (sessions, or bytes: the fork's files count): nothing is created"),
      ...errors,
      501: json(S.ErrorBody, 'This host cannot fork sessions'),
    },
  }),
  listBranches: createRoute({
    method: 'get',
    summary: "The workspace's branches (proposed changes waiting for review)",
    path: '/sessions/{id}/branches',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(z.array(C.Branch), 'Live branches'), ...errors },
  }),
  diffBranch: createRoute({
    method: 'get',
    summary: 'What a branch changed relative to its base',
    path: '/sessions/{id}/branches/{name}/diff',
    security,
    request: { params: C.BranchParams },
    responses: { 200: json(C.Diff, 'The diff'), ...errors },
  }),
  commitBranch: createRoute({
    method: 'post',
    summary: 'Land a branch on the workspace in one commit',
    path: '/sessions/{id}/branches/{name}/commit',
    security,
    request: { params: C.BranchParams },
    responses: {
      200: json(C.Landed, 'Landed; the branch is gone'),
      409: json(C.Conflicts, 'The base changed under the branch: nothing written'),
      ...errors,
    },
  }),
  discardBranch: createRoute({
    method: 'delete',
    summary: 'Discard a branch',
    path: '/sessions/{id}/branches/{name}',
    security,
    request: { params: C.BranchParams },
    responses: { 200: json(S.Ok, 'Discarded'), ...errors },
  }),
} as const
