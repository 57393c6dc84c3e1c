import { afterAll, describe } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../../src/session/index.js'
import { describeAcknowledgedWork } from '../session/acknowledged-work.js'

// Every 202 route of the Node host leads to work or is refused (test/session/acknowledged-work.ts).
const secret = 'test-secret-test-secret-test-secret-ack0'
const host = createSessionHost({
  store: memoryStore(),
  agents: { appendix: scriptAppendixProfile(), 'appendix-asking': scriptAppendixProfile({ askFirst: true, approveRunJs: true }) },
  pollMs: 20,
})
const app = createSessionApp(host, { auth: { secret } })
afterAll(() => host.stop())

describe('acknowledged work on the Node host', () => {
  describeAcknowledgedWork({
    token: owner => mintToken(secret, owner),
    call: async (method, path, token, body) =>
      app.fetch(
        new Request(`http://host.test${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
        }),
      ),
  })
})
