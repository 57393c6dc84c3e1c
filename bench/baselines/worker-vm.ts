/**
 * The reference design run_js is measured against: a `worker_threads` Worker per run, a `node:vm`
 * context inside it with the same guest API shape (`vfs.read`, `console.log`), and host calls bridged
 * through `postMessage` with request ids. Memory is bounded by the Worker's `resourceLimits`, time by
 * `vm`'s timeout (sync code) plus a host timer and `terminate()`.
 */
import { Worker } from 'node:worker_threads'
import type { Vfs } from '../../src/index.js'

/** The guest side, evaluated as CommonJS inside the Worker. */
const GUEST = `
const { parentPort } = require('node:worker_threads')
const vm = require('node:vm')
let next = 0
const pending = new Map()
parentPort.on('message', (m) => {
  if (m.type === 'run') return run(m.code, m.timeMs)
  const p = pending.get(m.id)
  if (!p) return
  pending.delete(m.id)
  if (m.ok) p.resolve(m.value); else p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }))
})
function call(op, args) {
  const id = ++next
  return new Promise((resolve, reject) => { pending.set(id, { resolve, reject }); parentPort.postMessage({ type: 'call', id, op, args }) })
}
const logs = []
const context = vm.createContext(Object.freeze({
  vfs: Object.freeze({ read: (path) => call('read', [path]) }),
  console: Object.freeze({ log: (...a) => logs.push(a.map(String).join(' ')) }),
}))
async function run(code, timeMs) {
  try {
    const result = await vm.runInContext('(async () => {\\n' + code + '\\n})()', context, { timeout: timeMs })
    parentPort.postMessage({ type: 'done', ok: true, result: JSON.stringify(result), logs })
  } catch (e) {
    parentPort.postMessage({ type: 'done', ok: false, error: { name: e && e.name, message: String(e && e.message) }, logs })
  }
}
parentPort.postMessage({ type: 'ready' })
`

export interface WorkerRunResult {
  success: boolean
  result?: unknown
  error?: { name: string; message: string }
}

export interface WorkerRunOptions {
  vfs?: Vfs
  timeMs?: number
  /** V8 old-generation cap of the Worker, in MB. */
  memoryMb?: number
}

/** One run of the reference design: spawn, run, terminate. */
export function runInWorker(code: string, options: WorkerRunOptions = {}): Promise<WorkerRunResult> {
  const { vfs, timeMs = 10_000, memoryMb = 64 } = options
  return new Promise((resolve) => {
    const worker = new Worker(GUEST, { eval: true, resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } })
    let settled = false
    const finish = (r: WorkerRunResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      resolve(r)
    }
    const timer = setTimeout(() => finish({ success: false, error: { name: 'TimeoutError', message: `timed out after ${timeMs} ms` } }), timeMs)
    worker.on('error', (e) => finish({ success: false, error: { name: (e as Error).name, message: (e as Error).message } }))
    worker.on('message', async (m: { type: string; id?: number; op?: string; args?: unknown[]; ok?: boolean; result?: string; error?: { name: string; message: string } }) => {
      if (m.type === 'ready') return worker.postMessage({ type: 'run', code, timeMs })
      if (m.type === 'done') return finish(m.ok ? { success: true, result: m.result === undefined ? undefined : JSON.parse(m.result) } : { success: false, error: m.error })
      if (m.type === 'call') {
        try {
          if (!vfs || m.op !== 'read') throw new Error(`unknown call ${m.op}`)
          const value = await vfs.readFile(String(m.args?.[0]), 'utf8')
          worker.postMessage({ id: m.id, ok: true, value })
        } catch (e) {
          worker.postMessage({ id: m.id, ok: false, error: { name: (e as Error).name, message: (e as Error).message } })
        }
      }
    })
  })
}
