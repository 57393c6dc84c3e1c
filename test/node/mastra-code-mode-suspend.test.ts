import { Mastra } from '@mastra/core'
import { Agent } from '@mastra/core/agent'
import { InMemoryStore } from '@mastra/core/storage'
import { askUserTool, createTool } from '@mastra/core/tools'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { memoryStore, openVfs } from '../../src/index.js'
import { scriptedModel, type ScriptedView } from '../../src/agent/index.js'
import { createSuspendableCodeMode, QuickJsCodeModeTransport } from '../../src/mastra/index.js'

// A Code Mode program that asks the user, through a real Mastra Agent (@mastra/core) and a scripted model.
const PROGRAM = `
  const before = await external_lookup({ q: 'colours' })
  await vfs.write('/notes/before.txt', 'looked up ' + before.count)
  const answer = await external_ask_user({ question: 'Which colour?', options: [{ label: 'red' }, { label: 'blue' }] })
  await vfs.write('/notes/after.txt', answer.content)
  return { before: before.count, answer: answer.content }`

function setup(vfs: Awaited<ReturnType<typeof openVfs>>) {
  const calls = { lookup: 0 }
  const lookup = createTool({
    id: 'lookup',
    description: 'Looks something up',
    inputSchema: z.object({ q: z.string() }),
    execute: async () => ({ count: ++calls.lookup }),
  })
  const transport = new QuickJsCodeModeTransport({ vfs, archiveDir: false })
  const { tool, instructions } = createSuspendableCodeMode({ tools: { ask_user: askUserTool, lookup } }, transport)
  return { calls, tool, instructions, transport }
}

describe('Mastra Code Mode through QuickJsCodeModeTransport: a program that asks the user parks and resumes', () => {
  it('an Agent run suspends on the program’s ask_user; resumeGenerate runs it again without repeating its lookup or its write', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-ask', scope: 'one' })
    const { calls, tool, instructions, transport } = setup(vfs)
    const seen: ScriptedView[] = []
    const model = scriptedModel(view => {
      seen.push(view)
      if (view.call === 0) return { toolCalls: [{ toolName: 'execute_typescript', input: { code: PROGRAM } }] }
      return { text: `done: ${JSON.stringify(view.last[0]?.value)}` }
    })
    // Mastra keeps the suspended run in its storage; the program's journal is in the workspace.
    const storage = new InMemoryStore()
    const host = (built: ReturnType<typeof setup>) => {
      const agent = new Agent({
        id: 'asks',
        name: 'asks',
        instructions: ['Use code.', built.instructions],
        model,
        tools: { [built.tool.id]: built.tool },
      })
      new Mastra({ agents: { asks: agent }, storage, logger: false })
      return agent
    }
    const agent = host({ calls, tool, instructions, transport })
    const out = await agent.generate('Pick a colour.', { maxSteps: 4 })
    expect(out.finishReason).toBe('suspended')
    // The execute_typescript call suspends with the payload ask_user suspended with, as Mastra shows any suspended tool.
    expect(out.suspendPayload).toMatchObject({
      toolName: 'execute_typescript',
      suspendPayload: { question: 'Which colour?', options: [{ label: 'red' }, { label: 'blue' }], selectionMode: 'single_select' },
    })
    expect(calls.lookup).toBe(1)
    const version = (await vfs.stat('/notes/before.txt')).version
    expect(await vfs.exists('/notes/after.txt')).toBe(false)
    const journals = await vfs.readdir('/.code_mode')
    expect(journals).toHaveLength(1)

    transport.close()

    // "A restart": a new transport, tool and agent (nothing of the first survives but the two stores).
    const again = setup(vfs)
    const resumed = await host(again).resumeGenerate('blue', { runId: out.runId! })
    expect(resumed.text).toMatch(/^done: /)
    expect(calls.lookup + again.calls.lookup).toBe(1) // answered from the journal
    expect((await vfs.stat('/notes/before.txt')).version).toBe(version)
    expect(await vfs.readFile('/notes/after.txt', 'utf8')).toBe('User answered: blue')
    expect(resumed.text).toContain('User answered: blue')
    expect(await vfs.readdir('/.code_mode')).toEqual([]) // the journal is gone once the program finished
    again.transport.close()
  })
})
