/**
 * The behaviours of `@mastra/quickjs`'s transport tests (mastra-ai/mastra code-mode/quickjs, itself
 * ported from `@mastra/isolated-vm`), written as our tests of QuickJsCodeModeTransport, so the two
 * transports stay interchangeable. Real QuickJS, no fakes.
 */
import type { CodeModeToolDispatcher, CodeModeToolResult } from '@mastra/core/tools'
import { afterAll, describe, expect, it } from 'vitest'
import { QuickJsCodeModeTransport } from '../../src/mastra/index.js'

type Extra = Partial<Parameters<QuickJsCodeModeTransport['run']>[0]> & { transport?: QuickJsCodeModeTransport }

const shared = new QuickJsCodeModeTransport()
afterAll(() => shared.close())

function run(program: string, extra: Extra = {}): Promise<CodeModeToolResult> {
  const { transport = shared, ...rest } = extra
  return transport.run({ program, toolIds: [], dispatch: async () => undefined, timeout: 5000, ...rest })
}

/** A dispatcher that records its calls. */
function recording(answer: (tool: string, args: unknown) => unknown = () => 'ok') {
  const calls: Array<[string, unknown]> = []
  const dispatch: CodeModeToolDispatcher = async (tool, args) => (calls.push([tool, args]), answer(tool, args))
  return { calls, dispatch }
}

describe('QuickJsCodeModeTransport against the @mastra/quickjs transport cases', () => {
  it('runs a program, strips TypeScript, captures console output', async () => {
    expect(await run(`return 1 + 2;`)).toEqual({ success: true, result: 3, logs: [] })
    const ts = await run(`const double = (n: number): number => n * 2; const values: number[] = [1, 2, 3]; return values.map(double);`)
    expect(ts).toMatchObject({ success: true, result: [2, 4, 6] })
    const logged = await run(`console.log('hello', { a: 1 }); console.warn('careful'); return null;`)
    expect(logged).toEqual({ success: true, result: null, logs: ['hello {"a":1}', 'careful'] })
  })

  it('bridges external_* calls, Promise.all in order, 8 calls in flight at once, sanitised names', async () => {
    const echo = recording((tool, args) => ({ echoed: { tool, args } }))
    const r = await run(`const r = await external_lookup({ id: 'x' }); return r.echoed;`, {
      toolIds: ['lookup'],
      dispatch: echo.dispatch,
    })
    expect(r.result).toEqual({ tool: 'lookup', args: { id: 'x' } })
    expect(echo.calls).toEqual([['lookup', { id: 'x' }]])

    const reversed: CodeModeToolDispatcher = async (_t, args) => {
      const { n } = args as { n: number }
      await new Promise(resolve => setTimeout(resolve, (3 - n) * 20))
      return n * 10
    }
    const all = await run(`return await Promise.all([external_calc({ n: 1 }), external_calc({ n: 2 }), external_calc({ n: 3 })])`, {
      toolIds: ['calc'],
      dispatch: reversed,
    })
    expect(all.result).toEqual([10, 20, 30])

    let inFlight = 0
    let maxInFlight = 0
    const slow: CodeModeToolDispatcher = async (_t, args) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight)
      await new Promise(resolve => setTimeout(resolve, 10))
      inFlight--
      return (args as { n: number }).n
    }
    const eight = await run(
      `const calls = []; for (let n = 0; n < 8; n++) calls.push(external_calc({ n })); return (await Promise.all(calls)).reduce((a, b) => a + b, 0)`,
      { toolIds: ['calc'], dispatch: slow },
    )
    expect(eight.result).toBe(28)
    expect(maxInFlight).toBe(8)

    const named = recording()
    expect((await run(`return await external_my_tool({})`, { toolIds: ['my-tool'], dispatch: named.dispatch })).success).toBe(true)
    expect(named.calls).toEqual([['my-tool', {}]])
  })

  it('errors: dispatcher error names reach the guest; non-JSON arguments are refused before dispatch; throws and syntax errors are results', async () => {
    const custom = await run(`try { await external_fail({}) } catch (e) { return { message: e.message, name: e.name } }`, {
      toolIds: ['fail'],
      dispatch: async () => {
        const error = new Error('boom')
        error.name = 'CustomError'
        throw error
      },
    })
    expect(custom.result).toEqual({ message: 'boom', name: 'CustomError' })
    const never = recording()
    const bigint = await run(`try { await external_calc({ n: 1n }) } catch (e) { return e.message }`, {
      toolIds: ['calc'],
      dispatch: never.dispatch,
    })
    expect(bigint.result).toMatch(/JSON-serializable/)
    expect(never.calls).toEqual([])
    expect(await run(`throw new TypeError('bad input');`)).toMatchObject({
      success: false,
      error: { message: 'bad input', name: 'TypeError' },
    })
    expect((await run(`const = ;`)).error?.name).toBe('SyntaxError')
    const cyclic = await run(`const a = {}; a.self = a; return a;`)
    expect(cyclic).toMatchObject({
      success: false,
      error: { name: 'TypeError', message: expect.stringMatching(/not JSON-serializable/) },
    })
  })

  it('limits: a hanging promise, a hanging tool call and a synchronous loop time out; a memory bomb fails; logs before a failure are kept', async () => {
    const cases: Array<[string, Extra]> = [
      [`await new Promise(() => {}); return 1;`, {}],
      [`return await external_hang({});`, { toolIds: ['hang'], dispatch: () => new Promise(() => {}) }],
      [`while (true) {}`, {}],
    ]
    for (const [program, extra] of cases) {
      const r = await run(program, { ...extra, timeout: 300 })
      expect(r.success, program).toBe(false)
      expect(r.error?.name, program).toBe('TimeoutError')
      expect(r.error?.message, program).toMatch(/timed out after 300 ?ms/)
    }
    const small = new QuickJsCodeModeTransport({ limits: { memoryBytes: 16 * 1024 * 1024 } })
    const bomb = await run(`const chunks = []; while (true) chunks.push(new Array(1024 * 1024).fill('x'));`, {
      transport: small,
      timeout: 30_000,
    })
    expect(bomb.success).toBe(false)
    small.close()
    const later = await run(`console.log('step 1 done'); throw new Error('later failure');`)
    expect(later).toMatchObject({ success: false, logs: ['step 1 done'] })
  })

  it('abort: an aborted signal runs nothing; an abort mid-call and during a synchronous loop end the run with AbortError', async () => {
    const pre = new AbortController()
    pre.abort()
    const never = recording()
    const r1 = await run(`return await external_ping({});`, {
      toolIds: ['ping'],
      dispatch: never.dispatch,
      abortSignal: pre.signal,
    })
    expect(r1).toMatchObject({ success: false, error: { name: 'AbortError' } })
    expect(never.calls).toEqual([])

    const mid = new AbortController()
    const r2 = await run(`return await external_hang({});`, {
      toolIds: ['hang'],
      abortSignal: mid.signal,
      dispatch: async () => (mid.abort(), new Promise(() => {})),
    })
    expect(r2.error?.name).toBe('AbortError')

    const loop = new AbortController()
    const r3 = await run(`await external_go({}); while (true) {}`, {
      toolIds: ['go'],
      abortSignal: loop.signal,
      timeout: 30_000,
      dispatch: async () => (loop.abort(), 'go'),
    })
    expect(r3.error?.name).toBe('AbortError')
  })

  it('isolation: no host capabilities, no host bridges, no module loader; tools that were not exposed do not exist', async () => {
    const caps = await run(`return { process: typeof process, require: typeof require, fetch: typeof fetch, setTimeout: typeof setTimeout,
      importScripts: typeof importScripts, module: typeof module, globalProcess: typeof globalThis.process,
      hidden: Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith('__')) }`)
    expect(caps.result).toEqual({
      process: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      setTimeout: 'undefined',
      importScripts: 'undefined',
      module: 'undefined',
      globalProcess: 'undefined',
      hidden: [],
    })
    const never = recording()
    const r = await run(`try { return await external_secret({}) } catch (e) { return { name: e.name } }`, {
      toolIds: ['allowed'],
      dispatch: never.dispatch,
    })
    expect(r.result).toEqual({ name: 'ReferenceError' })
    expect(never.calls).toEqual([])
  })

  it('observer hooks: called with the call and its outcome, and a throwing hook breaks nothing', async () => {
    const calls: unknown[] = []
    const results: unknown[] = []
    const ok = await run(`return await external_ping({ q: 1 });`, {
      toolIds: ['ping'],
      dispatch: async () => 'pong',
      onExternalCall: (tool, args) => {
        calls.push([tool, args])
        throw new Error('observer boom')
      },
      onExternalResult: (tool, ms, error) => results.push([tool, typeof ms, error]),
    })
    expect(ok).toMatchObject({ success: true, result: 'pong' })
    expect(calls).toEqual([['ping', { q: 1 }]])
    expect(results).toEqual([['ping', 'number', undefined]])
    const failed: unknown[] = []
    await run(`try { await external_fail({}) } catch {} return null;`, {
      toolIds: ['fail'],
      dispatch: async () => {
        throw new Error('boom')
      },
      onExternalResult: (tool, _ms, error) => failed.push([tool, (error as Error).message]),
    })
    expect(failed).toEqual([['fail', 'boom']])
  })
})
