import { SESSION_API_ROUTES } from './api-schemas.gen.js'
import type { SessionApiRoutes } from './api-routes.gen.js'
import { SessionApiError } from './errors.js'
import { authHeaders, buildUrl, checkAnswer, readJson, requestSignal, type Transport } from './http.js'

/** The name of a route of the session API (`createSession`, `sendMessage`, …). */
export type SessionRouteName = keyof SessionApiRoutes

type Route<N extends SessionRouteName> = SessionApiRoutes[N]
type Success = 200 | 201 | 202 | 204 | 206

/** What a route answers on success: its JSON, or the `Response` for routes that answer bytes or a stream. */
export type RouteAnswer<N extends SessionRouteName> = Route<N>['responses'][Extract<keyof Route<N>['responses'], Success>]

/**
 * What a call of route `N` takes: its path parameters, query and body, each required when the route
 * requires it; plus an `AbortSignal`, extra headers and a time limit for this call.
 */
export type RouteInput<N extends SessionRouteName> = ({} extends Route<N>['params']
  ? { params?: Route<N>['params'] }
  : { params: Route<N>['params'] }) &
  ({} extends Route<N>['query'] ? { query?: Route<N>['query'] } : { query: Route<N>['query'] }) &
  ([Route<N>['body']] extends [never] ? { body?: undefined } : { body: Route<N>['body'] }) & {
    signal?: AbortSignal
    headers?: HeadersInit
    /** Overrides the client's `timeoutMs` for this call (0: none). */
    timeoutMs?: number
  }

/** The arguments of a call: the input may be left out when nothing in it is required. */
export type RouteArgs<N extends SessionRouteName> = {} extends RouteInput<N> ? [input?: RouteInput<N>] : [input: RouteInput<N>]

/** Every route of the session API as a typed call (`api.sendMessage({ params: { id }, body: { text } })`). */
export type SessionApi = { [N in SessionRouteName]: (...args: RouteArgs<N>) => Promise<RouteAnswer<N>> }

type AnyInput = {
  params?: Record<string, string>
  query?: object
  body?: unknown
  signal?: AbortSignal
  headers?: HeadersInit
  timeoutMs?: number
}

/** Calls one route: builds the request from the generated route table, throws {@link SessionApiError} for any failure. */
export async function callRoute(transport: Transport, name: SessionRouteName, input: AnyInput = {}): Promise<unknown> {
  const route = SESSION_API_ROUTES[name]
  if (!route) throw new SessionApiError(0, 'invalid', `no route named ${String(name)}`)
  const url = buildUrl(transport.baseUrl, route.path, input.params, input.query)
  const headers = await authHeaders(transport, input.headers)
  let body: BodyInit | undefined
  if (route.body === 'json') {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(input.body)
  } else if (route.body !== 'none') body = input.body as BodyInit
  // A raw answer (a file, a stream) is the caller's to read: only the wait for its headers is bounded.
  const raw = route.response === 'raw'
  const limit = requestSignal(input.signal, input.timeoutMs ?? transport.timeoutMs)
  try {
    const response = await checkAnswer(await transport.fetch(url, { method: route.method, headers, body, signal: limit.signal }))
    if (raw) return response
    return await readJson(response, transport.maxResponseBytes)
  } catch (error) {
    throw limit.failure(error)
  } finally {
    // A raw body is read later, by the caller: the deadline does not cut it, the caller's signal still does.
    if (raw) limit.stopClock()
    else limit.done()
  }
}

/** The typed calls, one per route, built from the generated route table. */
export function createApi(transport: Transport): SessionApi {
  const api: Record<string, (input?: AnyInput) => Promise<unknown>> = {}
  for (const name of Object.keys(SESSION_API_ROUTES) as SessionRouteName[]) api[name] = input => callRoute(transport, name, input)
  return api as unknown as SessionApi
}
