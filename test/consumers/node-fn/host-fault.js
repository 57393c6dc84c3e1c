// A host whose QuickJS cannot start (its wasm is not where the host said): the agent's run_js
// tool must answer the model that the host failed, without the host's paths, never "fix the program".
import { readFile } from 'node:fs/promises'
import { createRunJs, memoryStore, openVfs, scopeRun, variantEngine } from 'agent-vfs'
import { runJsTool } from 'agent-vfs/agent'

const vfs = scopeRun(await openVfs({ store: memoryStore(), namespace: 'fn', scope: 's' }), { runId: 'r' })
const engine = variantEngine({
  wasmModule: async () => WebAssembly.compile(await readFile('/srv/app/secret-folder/quickjs.wasm')),
})
const tool = runJsTool(createRunJs({ vfs, engine }))
const answer = await tool.execute({ code: 'return 1' }).then(
  () => 'succeeded',
  e => e.message,
)
console.log(JSON.stringify({ answer }))
