import { memoryStore } from '../../src/index.js'
import { describeHostileAgentTools } from '../hostile/agent-tools.js'

// Hostile agent tool calls (test/hostile/agent-tools.ts) in Chromium, on the memory store.
describeHostileAgentTools('chromium, memory store', async () => ({ store: memoryStore() }))
