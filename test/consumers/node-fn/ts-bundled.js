// A Node function whose programs may be TypeScript, bundled into one file with esbuild and deployed as
// that file alone. The default loader is not beside the bundle: run_js says so once at start-up, on
// the host's console, and the model is told to write JavaScript. With the loader bundled
// (`typescript: () => import('agent-vfs/run-js/typescript')`), TypeScript runs.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'

export async function handler() {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 'ts' })
  const program = `const n: number = 21; return n * 2`
  const byDefault = await createRunJs({ vfs }).run(program)
  const bundled = await createRunJs({ vfs, typescript: () => import('agent-vfs/run-js/typescript') }).run(program)
  return { byDefault, bundled }
}
