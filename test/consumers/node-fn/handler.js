// A serverless Node function, bundled into one file with esbuild (CJS, its default for
// --platform=node, or ESM) and deployed as that file alone.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'

export async function handler() {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 's' })
  await vfs.writeFile('/data/n.txt', '21')
  return createRunJs({ vfs, typescript: false }).run(`return Number(await vfs.read('/data/n.txt')) * 2`)
}
