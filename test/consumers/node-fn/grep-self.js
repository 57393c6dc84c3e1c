// A program that greps the workspace for a literal it contains itself: every run archives its source
// first, and the archive must not count among the program's own hits.
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'

const vfs = await openVfs({ store: memoryStore(), namespace: 'fn', scope: 's' })
await vfs.writeFile('/notes/a.md', 'needle-4711\n')
const runJs = createRunJs({ vfs, typescript: false })
const counts = []
for (let i = 0; i < 3; i++) counts.push((await runJs.run(`return (await vfs.grep('needle-4711')).matches.length`)).result)
console.log(JSON.stringify({ counts, archived: (await vfs.readdir('/.run_js')).length }))
