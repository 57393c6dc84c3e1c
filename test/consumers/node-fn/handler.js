// A serverless Node function, bundled into one file with esbuild.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'

const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 's' })
await vfs.writeFile('/data/n.txt', '21')
const result = await createRunJs({ vfs, typescript: false }).run(`return Number(await vfs.read('/data/n.txt')) * 2`)
console.log(JSON.stringify(result))
