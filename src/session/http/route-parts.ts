import { z } from '@hono/zod-openapi'
import * as S from './schemas.js'

/** The pieces every route table of the session API is written with (routes.ts, change-routes.ts, usage-routes.ts). */

/** A JSON response (or request body) of `schema`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description })

/** A required JSON request body of `schema`. */
export const body = <T extends z.ZodType>(schema: T) => ({ body: { content: { 'application/json': { schema } }, required: true } })

/** Every route takes the bearer token. */
export const security = [{ bearer: [] as string[] }]

/** The error answers a table's routes share; `notFound` says what its 404 means there. */
export const errorResponses = (notFound: string) => ({
  400: json(S.ErrorBody, 'The request is malformed'),
  401: json(S.ErrorBody, 'No valid bearer token'),
  404: json(S.ErrorBody, notFound),
})
