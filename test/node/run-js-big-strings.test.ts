import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs } from '../../src/index.js'
import { defaultEngine, type QuickJsEngine } from '../../src/run-js/engine/engine.js'

const MIB = 1024 * 1024

describe('strings larger than a run can hold', () => {
  // The reviewer's reproduction: before the bound, copying 40 MiB into a 32 MiB memory trapped
  // inside wasm in a detached promise chain, and the unhandled rejection ended the process.
  it('a 40 MiB file read into a 32 MiB run is a guest error; the process survives and the next run works', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'big', scope: 's' })
    await vfs.writeFile('/big.bin', new Uint8Array(40 * MIB).fill(97))
    const tool = async () => 'x'.repeat(40 * MIB)
    const run = createRunJs({ vfs, archiveDir: false, limits: { memoryBytes: 32 * MIB }, tools: { tool } })
    const unhandled: unknown[] = []
    const onUnhandled = (error: unknown) => void unhandled.push(error)
    process.on('unhandledRejection', onUnhandled)
    try {
      for (const program of [
        `return (await vfs.readBytes('/big.bin')).length`,
        `return (await vfs.read('/big.bin')).length`,
        `return (await external_tool({})).length`,
      ]) {
        const r = await run.run(program)
        expect(r.success, program).toBe(false)
        expect(r.error, program).toMatchObject({ name: 'RangeError', code: 'E2BIG' })
        expect(r.error?.message).toMatch(/too large for this run's memory/)
      }
      expect(await run.run('return 40')).toMatchObject({ success: true, result: 40 })
      await new Promise(resolve => setTimeout(resolve, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      run.close()
    }
  }, 60_000)

  it('a host failure that is not a stack overflow is reported as what it was, and the next run gets a new engine', async () => {
    // An engine whose module fails on the host when handed one particular string: a stand-in for
    // any exception out of wasm while a host call settles. Every guest string is made by the
    // module's QTS_NewString, through quickjs-emscripten's API or run_js's direct calls alike.
    let instances = 0
    type Ffi = { QTS_NewString(ctx: number, chars: number): number; module: { UTF8ToString(ptr: number): string } }
    const engine: QuickJsEngine = {
      async instantiate(memory) {
        instances++
        const module = await defaultEngine().instantiate(memory)
        const ffi = (module as unknown as { ffi: Ffi }).ffi
        const newString = ffi.QTS_NewString
        ffi.QTS_NewString = (ctx, chars) => {
          if (ffi.module.UTF8ToString(chars) === '"boom"') throw new Error('simulated trap')
          return newString(ctx, chars)
        }
        return module
      },
    }
    const run = createRunJs({
      vfs: await openVfs({ store: memoryStore(), namespace: 'host', scope: 's' }),
      archiveDir: false,
      engine,
      tools: { boom: async () => 'boom' },
    })
    // An exception out of wasm while settling a host call ends the run; it never reaches the event loop.
    const unhandled: unknown[] = []
    const onUnhandled = (error: unknown) => void unhandled.push(error)
    process.on('unhandledRejection', onUnhandled)
    const r = await run.run(`console.log('before'); return await external_boom({})`)
    await new Promise(resolve => setTimeout(resolve, 20))
    process.off('unhandledRejection', onUnhandled)
    expect(unhandled).toEqual([])
    expect(r.success).toBe(false)
    expect(r.logs).toEqual(['before'])
    expect(r.error).toMatchObject({
      name: 'InternalError',
      message: 'the engine failed on the host (Error: simulated trap); the engine was replaced',
    })
    expect(await run.run('return 3')).toMatchObject({ success: true, result: 3 })
    expect(instances).toBe(2)
    run.close()
  })
})
