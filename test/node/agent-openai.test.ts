import { afterEach, describe, expect, it } from 'vitest'
import { openAiCompatibleModel, readEvents, runTask } from '../../src/agent/index.js'
import { completion, fakeOpenAi } from '../agent/fake-openai.js'
import { freshRun } from '../agent/workspace.js'

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

describe('openAiCompatibleModel against a local fake endpoint', () => {
  it('sends the prompt, tools and key; runs the tool calls it answers; reports usage', async () => {
    const fake = await fakeOpenAi((req, n) => {
      if (n === 0)
        return completion({
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'write_file', arguments: JSON.stringify({ path: '/work/hello.md', content: 'hi' }) },
            },
          ],
        })
      return completion({ content: 'Wrote it.' })
    })
    close = fake.close
    const { run } = await freshRun()
    const r = await runTask({
      vfs: run,
      instructions: 'Say hi in a file.',
      model: openAiCompatibleModel({ baseURL: fake.baseURL + '/', apiKey: 'sk-test', modelId: 'local-model' }),
    })
    expect(r).toMatchObject({
      status: 'completed',
      result: 'Wrote it.',
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    })
    expect(await run.readFile('/work/hello.md', 'utf8')).toBe('hi')
    const [first, second] = fake.requests
    expect(first.headers.authorization).toBe('Bearer sk-test')
    expect(first.body.model).toBe('local-model')
    expect(first.body.messages.map(m => m.role)).toEqual(['system', 'user'])
    expect(first.body.tools!.map(t => t.function.name)).toContain('read_file')
    expect(first.body.tools!.find(t => t.function.name === 'write_file')!.function.parameters).toMatchObject({
      type: 'object',
      required: ['path', 'content'],
    })
    expect(second.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"/work/hello.md","content":"hi"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: expect.stringMatching(/^Created \/work\/hello.md/) },
    ])
  })

  it('an endpoint error becomes a model-error event and the run ends within its bounds', async () => {
    const fake = await fakeOpenAi(() => ({ status: 500, body: { error: { message: 'overloaded' } } }))
    close = fake.close
    const { run } = await freshRun()
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      model: openAiCompatibleModel({ baseURL: fake.baseURL, modelId: 'm' }),
    })
    expect(r).toMatchObject({ status: 'failed', error: { code: 'no-progress' } })
    const errors = (await readEvents(run, r.executionId)).filter(e => e.type === 'error')
    expect(errors[0]).toMatchObject({ code: 'model-error', message: expect.stringMatching(/answered 500: .*overloaded/) })
  })

  it("takes the README's baseUrl (baseURL stays an alias) and says which is missing", async () => {
    const fake = await fakeOpenAi(() => completion({ content: 'hello' }))
    close = fake.close
    const call = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as never
    const documented = await openAiCompatibleModel({ baseUrl: fake.baseURL + '/', modelId: 'm' }).doGenerate(call)
    expect(documented.content).toEqual([{ type: 'text', text: 'hello' }])
    const alias = await openAiCompatibleModel({ baseURL: fake.baseURL, modelId: 'm' }).doGenerate(call)
    expect(alias.content).toEqual([{ type: 'text', text: 'hello' }])
    expect(fake.requests).toHaveLength(2)
    expect(() => openAiCompatibleModel({ modelId: 'm' } as never)).toThrow(/needs baseUrl/)
    expect(() => openAiCompatibleModel({ baseUrl: 'http://a/v1', baseURL: 'http://b/v1', modelId: 'm' })).toThrow(
      /baseUrl and baseURL differ/,
    )
  })
})
