import { useChat } from '@ai-sdk/react'
import { createElement as h, StrictMode, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { SessionChatTransport } from 'agent-vfs/ai-sdk-ui'
import { pageSession } from './session.js'

function Part({ part, addToolOutput, addToolApprovalResponse }) {
  if (part.type === 'text') return h('p', { className: 'text' }, part.text)
  if (part.type !== 'dynamic-tool') return null
  if (part.toolName === 'ask_user' && part.state === 'input-available')
    return h(
      'button',
      { id: 'answer', onClick: () => addToolOutput({ tool: 'ask_user', toolCallId: part.toolCallId, output: { answer: 'Season One' } }) },
      part.input.question,
    )
  if (part.state === 'approval-requested')
    return h(
      'button',
      { id: 'approve', onClick: () => addToolApprovalResponse({ id: part.approval.id, approved: true }) },
      `Allow ${part.toolName}`,
    )
  return h('code', { className: 'tool' }, `${part.toolName}: ${part.state}`)
}

function Chat({ client, sessionId }) {
  const [transport] = useState(() => new SessionChatTransport({ client }))
  const chat = useChat({ id: sessionId, transport, resume: true, sendAutomaticallyWhen: transport.sendAutomaticallyWhen })
  return h(
    'section',
    null,
    h('p', { id: 'status' }, chat.status),
    ...chat.messages.flatMap(m => m.parts).map((part, i) => h(Part, { key: i, part, ...chat })),
    h('button', { id: 'send', onClick: () => chat.sendMessage({ text: 'Write the appendix' }) }, 'Send'),
  )
}

const { client, id } = await pageSession()
createRoot(document.getElementById('root')).render(h(StrictMode, null, h(Chat, { client, sessionId: id })))
