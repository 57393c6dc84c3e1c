// The session API inside an app that has its own hono 4.x (not the one agent-vfs was built with):
// one hono copy, and a malformed JSON body is the client's 400, not a 500.
import { Hono } from 'hono'
import { memoryStore } from 'agent-vfs'
import { scriptedModel } from 'agent-vfs/agent'
import { createSessionApp, createSessionHost, mintToken } from 'agent-vfs/session'

const secret = 'consumer-secret-consumer-secret-0123456789'
const done = { setup: () => ({ model: scriptedModel(() => ({ text: 'done' })) }) }
const host = createSessionHost({ store: memoryStore(), agents: { done } })
const app = new Hono().route('/api', createSessionApp(host, { auth: { secret } }))
const res = await app.request('/api/sessions', {
  method: 'POST',
  headers: { authorization: `Bearer ${await mintToken(secret, 'ana')}`, 'content-type': 'application/json' },
  body: '{"profile": ',
})
console.log(JSON.stringify({ status: res.status, body: await res.json() }))
process.exit(0)
