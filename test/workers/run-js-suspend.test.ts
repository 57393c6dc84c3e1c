import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeProgramAsk } from '../agent/program-ask-suite.js'
import { describeRunJsSuspend } from '../run-js/suspend-suite.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

// The workspace lives in a real Durable Object's storage (every store call runs inside it); QuickJS
// comes from the imported wasm module, as Workers require.
let n = 0
const inObject = () => {
  const name = `suspend-${n++}`
  return () => storeInsideDurableObject(name)
}
describeRunJsSuspend('workerd, durable object store', async () => ({ store: inObject(), engine: workerdEngine() }))
describeProgramAsk('workerd, durable object store', async () => ({ store: inObject(), engine: workerdEngine() }))
