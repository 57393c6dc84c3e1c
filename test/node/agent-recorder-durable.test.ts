import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, type Vfs } from '../../src/index.js'
import { ExecutionRecorder, readExecution } from '../../src/agent/state/execution-records.js'

/**
 * A session host appends what a recorder's listeners hear to the session log. The end of an
 * execution must not reach them before the record saying it ended is written: a host that dies in
 * between would leave an `execution-end` in the log for a run the next host continues and ends again
 * (seen as two `interrupted` ends in test/node/session-processes.test.ts under load).
 */
describe('an execution recorder tells its end only once it is written', () => {
  it('tool events at once; result-accepted, execution-end and what follows after the write, in order', async () => {
    const base = await openVfs({ store: memoryStore(), namespace: 'rec', scope: 'durable' })
    let release!: () => void
    let gated = false
    const gate = new Promise<void>(r => (release = r))
    // The events file's writes wait at the gate once it is closed: the window a crash would hit.
    const vfs = new Proxy(base, {
      get(target, key) {
        const value = Reflect.get(target, key, target)
        if (key !== 'appendFile') return typeof value === 'function' ? value.bind(target) : value
        return async (...args: Parameters<Vfs['appendFile']>) => {
          if (gated) await gate
          return target.appendFile(...args)
        }
      },
    })
    const recorder = await ExecutionRecorder.create(vfs, 'do it', false)
    const heard: string[] = []
    recorder.subscribe(e => heard.push(e.type))
    await recorder.emit({ type: 'tool-call', toolCallId: 't1', toolName: 'read_file', input: {} })
    expect(heard).toEqual(['tool-call'])
    gated = true
    recorder.record.status = 'interrupted'
    await recorder.emit({ type: 'result-accepted', result: 1 })
    await recorder.emit({ type: 'execution-end', status: 'interrupted' })
    await recorder.emit({ type: 'error', code: 'late', message: 'after the end' })
    const saved = recorder.save()
    await new Promise(r => setTimeout(r, 20))
    expect(heard).toEqual(['tool-call'])
    release()
    await saved
    expect(heard).toEqual(['tool-call', 'result-accepted', 'execution-end', 'error'])
    expect((await readExecution(base, recorder.record.id))?.status).toBe('interrupted')
  })
})
