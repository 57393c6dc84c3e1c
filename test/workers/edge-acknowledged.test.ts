import { describe } from 'vitest'
import { describeAcknowledgedWork } from '../session/acknowledged-work.js'
import { call, configureEdge, token } from './edge-harness.js'

// Every 202 route of the Worker leads to work or is refused (test/session/acknowledged-work.ts): a
// fork here is a new Durable Object that copied the original's workspace and events.
configureEdge()

describe('acknowledged work on the Worker', () => {
  describeAcknowledgedWork({ token, call: (method, path, auth, body) => call(method, path, auth, body) })
})
