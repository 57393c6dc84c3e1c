import { memoryStore } from '../../src/index.js'
import { describeHostileAgentTools } from '../hostile/agent-tools.js'

// Hostile agent tool calls (test/hostile/agent-tools.ts) in Node, on the memory store.
describeHostileAgentTools('node, memory store', async () => ({ store: memoryStore() }))
