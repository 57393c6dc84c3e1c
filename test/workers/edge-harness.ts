import { exports } from 'cloudflare:workers'
import { expect } from 'vitest'
// The repository's Worker first: its module configures the edge once; a test file may configure it again.
import '../../worker-edge/src/index.js'
import { scriptAppendixProfile, type ScriptAppendixProfileOptions } from '../../fixtures/script-appendix/profile.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { mintToken, type AgentProfile, type SessionEvent, type SessionRecord } from '../../src/session/index.js'
import { createEdgeApp, type EdgeOptions } from '../../src/worker/index.js'
import { season } from '../session/harness.js'
import { uploadForm } from '../session/route-requests.js'

/** The Worker secret test/workers/vitest.config.ts binds as AGENT_VFS_JWT_SECRET. */
export const SECRET = 'test-only-secret-test-only-secret-0123'

/** The script-appendix profile as it runs in workerd. */
export const appendixProfile = (options: ScriptAppendixProfileOptions = {}): AgentProfile =>
  scriptAppendixProfile({ ...options, runJs: { engine: workerdEngine(), typescript: false } })

/**
 * Configures the edge of this test file's isolate (the Worker and its objects read the last
 * configuration): the repository's two profiles plus `agents`, and the other options.
 */
export function configureEdge(options: Partial<EdgeOptions> = {}): void {
  createEdgeApp({
    ...options,
    agents: {
      appendix: appendixProfile(),
      'appendix-asking': appendixProfile({ askFirst: true, approveRunJs: true }),
      ...options.agents,
    },
  })
}

export const token = (owner: string) => mintToken(SECRET, owner)

/** A request to the Worker (the repository's worker-edge/src/index.ts). */
export function call(method: string, path: string, auth?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const raw = body instanceof FormData || body instanceof Uint8Array || typeof body === 'string'
  return exports.default.fetch(
    new Request(`https://edge.test${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        ...(body !== undefined && !raw ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: raw ? (body as BodyInit) : JSON.stringify(body) } : {}),
    }),
  )
}

/** JSON of a response that must have `status`. */
export async function expectJson<T = any>(res: Response | Promise<Response>, status: number): Promise<T> {
  const r = await res
  const text = await r.text()
  expect([r.status, text.slice(0, 300)]).toEqual([status, expect.any(String)])
  return JSON.parse(text) as T
}

export async function createSession(auth: string, profile = 'appendix', title = 'edge'): Promise<SessionRecord> {
  return expectJson<SessionRecord>(call('POST', '/sessions', auth, { profile, title }), 201)
}

/** Uploads the small season into /context over HTTP. */
export async function uploadSeason(auth: string, id: string): Promise<void> {
  await expectJson(call('POST', `/sessions/${id}/files`, auth, uploadForm(season())), 201)
}

/** Polls the session until its status is one of `statuses`. */
export async function waitStatus(auth: string, id: string, statuses: string[], timeoutMs = 60_000): Promise<string> {
  const start = Date.now()
  for (;;) {
    const s = await expectJson<SessionRecord>(call('GET', `/sessions/${id}`, auth), 200)
    if (statuses.includes(s.status)) return s.status
    if (Date.now() - start > timeoutMs) throw new Error(`session ${id} stayed ${s.status}, wanted ${statuses.join('|')}`)
    await new Promise(r => setTimeout(r, 25))
  }
}

/** Every stored event after `after`. */
export async function events(auth: string, id: string, after = 0): Promise<SessionEvent[]> {
  return (await expectJson<{ events: SessionEvent[] }>(call('GET', `/sessions/${id}/events?after=${after}`, auth), 200)).events
}
