import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createRunJs, durableObjectStore, memoryStore, openVfs, scopeRun } from '../../src/index.js'
import { listExecutionIds, readExecution, runTask, scriptedModel } from '../../src/agent/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { appendixModel } from '../../fixtures/script-appendix/scripted.js'
import { APPENDIX_INSTRUCTIONS, appendixContract, seedInput } from '../../fixtures/script-appendix/task.js'
import { describeAgentRuntime } from '../agent/runtime-suite.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

// The agent runtime in workerd. QuickJS comes from the imported wasm module (workerdEngine) and
// TypeScript is off (importing `typescript` through the pool kills the run; the example's programs
// are plain JavaScript). On the durable-object store every store call runs inside a real Durable
// Object on its own SQLite storage, so each "restart" of the suite reads the workspace back from it.
describeAgentRuntime('workerd, durable object store', async () => ({
  store: storeInsideDurableObject('agent-suite'),
  engine: workerdEngine(),
  typescript: false,
}))
describeAgentRuntime('workerd, memory store', async () => ({ store: memoryStore(), engine: workerdEngine(), typescript: false }))

describe('the agent runtime entirely inside a Durable Object', () => {
  it('runs the script-appendix example with run_js on the object’s own storage, and a fresh workspace reads it back', async () => {
    const { files, truth } = generateEpisodes({ count: 6 })
    const out = await runInDurableObject(env.WORKSPACE.getByName('agent-inside'), async (_instance, state) => {
      const store = durableObjectStore(state.storage)
      const run = scopeRun(await openVfs({ store, namespace: 'agent', scope: 'inside', autoRefresh: false }), { runId: 'main' })
      await seedInput(run, files)
      const r = await runTask({
        vfs: run,
        model: scriptedModel(appendixModel()),
        instructions: APPENDIX_INSTRUCTIONS,
        contract: appendixContract,
        runJs: vfs => createRunJs({ vfs, engine: workerdEngine(), typescript: false }),
      })
      const again = scopeRun(
        await openVfs({ store: durableObjectStore(state.storage), namespace: 'agent', scope: 'inside', autoRefresh: false }),
        { runId: 'main' },
      )
      const ids = await listExecutionIds(again)
      return {
        status: r.status,
        toolCalls: r.toolCalls,
        ids,
        record: (await readExecution(again, ids[0]))?.status,
        assets: JSON.parse(await again.readFile('/outputs/assets.json', 'utf8')),
      }
    })
    expect(out).toMatchObject({ status: 'completed', ids: ['e0001'], record: 'completed' })
    expect(out.assets).toEqual({ characters: truth.characters, locations: truth.locations, props: truth.props })
  })
})
