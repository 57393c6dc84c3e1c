import { createRunJs, indexedDbStore, openVfs } from 'agent-vfs'

const out = document.getElementById('out')
try {
  const vfs = await openVfs({ store: indexedDbStore(), namespace: 'vite', scope: 'app' })
  await vfs.writeFile('/notes/a.md', 'alpha\nbeta\nalpha\n')
  const runJs = createRunJs({ vfs, typescript: () => import('agent-vfs/run-js/typescript') })
  const r = await runJs.run(`const hits: number = (await vfs.grep('alpha', { paths: ['/notes'] })).matches.length; return hits`)
  out.textContent = JSON.stringify(r)
} catch (error) {
  out.textContent = JSON.stringify({ success: false, thrown: String(error) })
}
