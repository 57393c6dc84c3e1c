// run_js with TypeScript in plain Node (node_modules present): the package's own pre-bundled loader,
// with no `typescript` installed. A TypeScript loader that takes longer than the program's time
// limit still gives the program its whole time.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'

const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 's' })
const plain = await createRunJs({ vfs }).run(`const n: number = 21; return n * 2`)
const slowLoader = async () => {
  await new Promise(r => setTimeout(r, 1500))
  return import('agent-vfs/run-js/typescript')
}
const slow = await createRunJs({ vfs, typescript: slowLoader, limits: { timeMs: 1000 } }).run(`const n: number = 1; return n + 1`)
console.log(JSON.stringify({ plain, slow }))
