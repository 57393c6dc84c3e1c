// A serverless Node function that runs run_js in worker threads (agent-vfs/run-js/node), bundled into
// one file with esbuild (CJS or ESM) and deployed as that file alone: the threads start from the bundle.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'
import { workerThreads } from 'agent-vfs/run-js/node'

export async function handler() {
  const threads = workerThreads({ size: 1 })
  try {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 'threads' })
    await vfs.writeFile('/data/n.txt', '21')
    const runJs = createRunJs({ vfs, executor: threads, typescript: false })
    const result = await runJs.run(
      `const n = Number(await vfs.read('/data/n.txt')); await vfs.write('/data/out.txt', String(n * 2)); return n * 2`,
    )
    return { result, written: await vfs.readFile('/data/out.txt', 'utf8'), stats: threads.stats() }
  } finally {
    await threads.close()
  }
}
