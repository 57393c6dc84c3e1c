import { openVfs, memoryStore, scopeRun } from '/work/main/src/index.ts'
const store = memoryStore()
const vfs = await openVfs({ store, namespace: 'n', scope: 's' })
await Promise.all([vfs.writeFile('/a/b.txt', 'hello'), vfs.writeFile('c.md', 'x\ny hello\nz'), vfs.mkdir('/empty/dir')])
console.log(await vfs.readdir('/', { recursive: true }), await vfs.stat('/a/b.txt'))
await vfs.rename('/a', '/moved')
const v2 = await openVfs({ store, namespace: 'n', scope: 's' })
console.log(await v2.readdir('/', { recursive: true }), (await v2.grep('hello', {context: 1})).matches, await v2.glob('**/*.txt'))
const run = scopeRun(v2, { runId: 'r1' })
await run.seed('/context/a.md', 'ctx')
await run.writeFile('/work/x', '1')
try { await run.writeFile('/context/a.md', 'no') } catch (e) { console.log(e.message) }
try { await run.readFile('/etc/passwd') } catch (e) { console.log(e.message) }
console.log(await run.readdir('/', { recursive: true }), await run.glob('**'), (await run.grep('ctx')).matches)
// conflict
const a = await openVfs({ store, namespace: 'n', scope: 's' }); const b = await openVfs({ store, namespace: 'n', scope: 's' })
await a.writeFile('/c.md', 'A')
try { await b.writeFile('/c.md', 'B') } catch (e) { console.log(e.code, e.message) }
console.log(await b.readFile('/c.md', 'utf8')); await b.refresh(); console.log(await b.readFile('/c.md', 'utf8'))
