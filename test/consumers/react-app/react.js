import { createElement as h, StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { folderEntries } from 'agent-vfs/client'
import { useFiles, usePending, useSend, useSession } from 'agent-vfs/react'
import { pageSession } from './session.js'

function SessionPanel({ client, id }) {
  const session = useSession(client, id)
  const files = useFiles(client, id)
  const { items, answer, decide } = usePending(client, id)
  const { send, sending } = useSend(client, id)
  return h(
    'section',
    null,
    h('p', { id: 'status' }, `${session.status} ${session.ready ? 'ready' : 'loading'}`),
    ...session.conversation.map((t, i) => (t.kind === 'text' ? h('p', { key: i, className: 'text' }, t.text) : null)),
    ...items.map(p =>
      p.kind === 'question'
        ? h('button', { key: p.pendingId, id: 'answer', onClick: () => answer(p.pendingId, 'Season One') }, p.question)
        : h('button', { key: p.pendingId, id: 'approve', onClick: () => decide(p.pendingId, 'approve') }, `Allow ${p.toolName}`),
    ),
    h('ul', { id: 'files' }, ...folderEntries(files, '/outputs').map(f => h('li', { key: f }, f))),
    h('button', { id: 'send', disabled: sending || !session.ready, onClick: () => send('Write the appendix') }, 'Send'),
  )
}

const { client, id } = await pageSession()
createRoot(document.getElementById('root')).render(h(StrictMode, null, h(SessionPanel, { client, id })))
