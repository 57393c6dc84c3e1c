/**
 * Issue 27, case 1: a worst-case diff must not stall other requests of a Node host.
 *
 * - `session.diff.others.p99`: ms, p99 of `GET /sessions` (same owner, loopback HTTP, memory store)
 *   while 10 worst-case diffs (`GET …/diff`, a file of 8,000 lines every one of which differs) are
 *   asked for at once, over several rounds. Baseline: the same requests' p99 on the idle host.
 *   Target: ours ≤ 100 ms.
 * - `session.diff.bounded`: ms of one worst-case `vfs.diff` at its bound (the file listed with
 *   `omitted`). Baseline: the same file with one line changed (a full line diff). Not judged.
 *
 * Run: `npm run bench -- session.diff` (or `node --conditions=agent-vfs:source --import tsx bench/session-diff.bench.ts`).
 */
import { memoryStore, openVfs } from '../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../src/session/index.js'
import { scriptAppendixProfile } from '../fixtures/script-appendix/profile.js'
import { worstCaseTexts } from '../test/hostile/diff-worst-case.js'
import { listen } from '../test/session/http-client.js'
import { Results, size, timeMedian, wanted } from './harness.js'

const results = new Results('session.json')
const secret = 'bench-secret-bench-secret-bench-secret-01'

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]

if (wanted('session.diff')) {
  const host = createSessionHost({
    store: memoryStore(),
    agents: { appendix: scriptAppendixProfile() },
    namespace: 'bench-diff',
    pollMs: 20,
  })
  const server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  const token = await mintToken(secret, 'ana')
  const call = async (method: string, path: string, body?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (body?.startsWith('{')) headers['content-type'] = 'application/json'
    const res = await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`)
    return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text
  }
  const { before, after } = worstCaseTexts()
  const s = await call('POST', '/sessions', JSON.stringify({ profile: 'appendix' }))
  await call('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, before)
  const from = (await call('GET', `/sessions/${s.id}/history?path=/work/big.txt`)).entries.at(-1).version
  await call('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, after)

  /** Latencies of back-to-back GET /sessions until `until` settles (or `count` of them when none). */
  const listLatencies = async (until: Promise<unknown> | undefined, count: number) => {
    const out: number[] = []
    let done = false
    void until?.then(() => (done = true))
    while (until ? !done : out.length < count) {
      const t = performance.now()
      await call('GET', '/sessions')
      out.push(performance.now() - t)
    }
    return out
  }
  await listLatencies(undefined, 50) // warm-up
  const idle = await listLatencies(undefined, size(400, 20))
  const busy: number[] = []
  for (let round = 0; round < size(5, 1); round++) {
    const diffs = Promise.all(Array.from({ length: 10 }, () => call('GET', `/sessions/${s.id}/diff?from=${from}`)))
    busy.push(...(await listLatencies(diffs, 0)))
    for (const d of await diffs)
      if (!d.entries.find((e: { path: string }) => e.path === '/work/big.txt').omitted) throw new Error('no bound')
  }
  results.add({
    name: 'session.diff.others.p99',
    unit: 'ms',
    better: 'lower',
    ours: p99(busy),
    baseline: p99(idle),
    target: 'ours <= 100 ms',
    baselineLabel: `p99 of GET /sessions on the idle host (${idle.length} requests; busy: ${busy.length})`,
  })
  await host.stop()
  await server.close()

  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'diff', autoRefresh: false })
  await vfs.writeFile('/big.txt', before)
  const v1 = vfs.version
  await vfs.writeFile('/big.txt', after)
  const small = await openVfs({ store: memoryStore(), namespace: 'bench', scope: 'small', autoRefresh: false })
  await small.writeFile('/big.txt', before)
  const s1 = small.version
  await small.writeFile('/big.txt', before.replace('a 4000\n', 'changed\n'))
  const ours = await timeMedian(() => vfs.diff(v1), { rounds: size(9, 1) })
  const baseline = await timeMedian(() => small.diff(s1), { rounds: size(9, 1) })
  results.add({
    name: 'session.diff.bounded',
    unit: 'ms',
    better: 'lower',
    ours,
    baseline,
    baselineLabel: 'the same 8,000-line file with one line changed (a full line diff)',
  })
}
