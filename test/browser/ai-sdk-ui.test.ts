import { useChat } from '@ai-sdk/react'
import type { DynamicToolUIPart, UIMessage } from 'ai'
import { createElement, StrictMode, useEffect, useState } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { SessionChatTransport } from '../../src/ai-sdk-ui/index.js'
import type { SessionClient } from '../../src/client/index.js'
import { sessionInPage } from './session-in-page.js'

// agent-vfs/ai-sdk-ui in Chromium: the real `useChat` of @ai-sdk/react over SessionChatTransport,
// against a session host served in the page. The appendix job's question is answered with
// addToolOutput and its approval with addToolApprovalResponse; the chat is unmounted while the model
// still thinks and mounted again with `resume: true` and a new transport (as after a reload).

type Chat = ReturnType<typeof useChat<UIMessage>>
interface Seen {
  chat?: Chat
  statuses: string[]
}

function ChatView({ client, id, resume, seen }: { client: SessionClient; id: string; resume: boolean; seen: Seen }) {
  // One transport per mount (a reload starts with none): what it knows is only what the session says.
  const [transport] = useState(() => new SessionChatTransport({ client }))
  const chat = useChat({ id, transport, resume, sendAutomaticallyWhen: transport.sendAutomaticallyWhen })
  useEffect(() => {
    seen.chat = chat
    if (seen.statuses.at(-1) !== chat.status) seen.statuses.push(chat.status)
  })
  return createElement('p', null, `${chat.status} ${chat.messages.length}`)
}

const toolParts = (chat: Chat | undefined): DynamicToolUIPart[] =>
  (chat?.messages.at(-1)?.parts ?? []).filter((p): p is DynamicToolUIPart => p.type === 'dynamic-tool')
const textOf = (chat: Chat | undefined) => (chat?.messages.at(-1)?.parts ?? []).flatMap(p => (p.type === 'text' ? [p.text] : [])).join('|')

function mount(element: ReturnType<typeof createElement>): { root: Root; node: HTMLElement } {
  const node = document.createElement('div')
  document.body.append(node)
  const root = createRoot(node)
  root.render(createElement(StrictMode, null, element))
  return { root, node }
}

it('in chromium: useChat streams a session reply, answers its question and approval, and resumes after a remount mid-run', async () => {
  // Model call 6 is the first after the approval's update_plan: the chat is remounted while it waits.
  const { host, client, sessionId: id, gate } = await sessionInPage({ gateAtCall: 6 })
  try {
    let seen: Seen = { statuses: [] }
    let { root, node } = mount(createElement(ChatView, { client, id, resume: false, seen }))
    await expect.poll(() => seen.chat?.status).toBe('ready')
    void seen.chat!.sendMessage({ text: APPENDIX_INSTRUCTIONS })

    // The question: the ask_user part, its toolCallId the pending id, answered with addToolOutput.
    await expect.poll(() => toolParts(seen.chat).find(p => p.toolName === 'ask_user')?.state, { timeout: 30_000 }).toBe('input-available')
    await expect.poll(() => seen.chat?.status).toBe('ready')
    const question = toolParts(seen.chat).find(p => p.toolName === 'ask_user')!
    expect(question.input).toMatchObject({ question: 'What title should the appendix have?' })
    void seen.chat!.addToolOutput({ tool: 'ask_user', toolCallId: question.toolCallId, output: { answer: 'Season One' } })

    // The approval: run_js's part asks for it; approved with reason 'always' (no more approvals).
    await expect.poll(() => toolParts(seen.chat).find(p => p.state === 'approval-requested')?.toolName, { timeout: 30_000 }).toBe('run_js')
    await expect.poll(() => seen.chat?.status).toBe('ready')
    const approval = toolParts(seen.chat).find(p => p.state === 'approval-requested')!
    expect(textOf(seen.chat)).toContain('Plan: survey, extract, assets, appendix.')
    expect(toolParts(seen.chat).find(p => p.toolName === 'ask_user')).toMatchObject({
      state: 'output-available',
      output: { answer: 'Season One' },
    })
    void seen.chat!.addToolApprovalResponse({ id: approval.approval!.id, approved: true, reason: 'always' })

    await gate.reached
    await expect
      .poll(() => toolParts(seen.chat).find(p => p.toolCallId === approval.toolCallId)?.state, { timeout: 30_000 })
      .toBe('output-available')
    expect(seen.chat!.status).toBe('streaming')
    root.unmount()
    node.remove()

    // Mounted again with resume: true and a new transport: the running reply is replayed from its start.
    seen = { statuses: [] }
    ;({ root, node } = mount(createElement(ChatView, { client, id, resume: true, seen })))
    await expect.poll(() => seen.chat?.status, { timeout: 30_000 }).toBe('streaming')
    await expect.poll(() => toolParts(seen.chat).find(p => p.toolName === 'run_js')?.state, { timeout: 30_000 }).toBe('output-available')
    expect(textOf(seen.chat)).toContain('Plan: survey, extract, assets, appendix.')
    gate.open()
    await expect.poll(() => seen.chat?.status, { timeout: 60_000 }).toBe('ready')
    expect(seen.chat!.error).toBeUndefined()
    const tools = toolParts(seen.chat)
    expect(tools.map(p => p.toolName)).toContain('submit_result')
    expect(tools.every(p => p.state === 'output-available' || p.state === 'output-error')).toBe(true)
    expect((await client.api.getSession({ params: { id } })).status).toBe('idle')
    expect((await client.download(id, '/outputs/appendix.md')).text()).toMatch(/^# Season One/)
    root.unmount()
    node.remove()
  } finally {
    gate.open()
    await host.stop()
  }
}, 120_000)
