import { memoryStore } from '../../src/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeHostileAgentTools } from '../hostile/agent-tools.js'

// Hostile agent tool calls (test/hostile/agent-tools.ts) in workerd: QuickJS from the imported
// wasm module, TypeScript off (the programs are plain JavaScript).
describeHostileAgentTools('workerd, memory store', async () => ({
  store: memoryStore(),
  engine: workerdEngine(),
  typescript: false,
}))
