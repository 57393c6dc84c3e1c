import { createElement, Suspense } from 'react'
import { renderToString } from 'react-dom/server'
import { expect, it } from 'vitest'
import { createSessionClient, type SessionClient } from '../../src/client/index.js'
import { useEvents, useFiles, usePending, useSend, useSession } from '../../src/react/index.js'

// agent-vfs/react renders on a server (react-dom/server, Node: no window): the hooks show the empty
// view, `suspense: true` does not suspend there, and nothing is requested during the render.

function Panel({ client, suspense }: { client: SessionClient; suspense: boolean }) {
  const id = 's0123456789abcdef0123456789abcdef'
  const session = useSession(client, id, { suspense })
  const files = useFiles(client, id)
  const pending = usePending(client, id)
  const events = useEvents(client, id)
  const { sending } = useSend(client, id)
  return createElement('p', null, `${session.status} ${session.ready} ${files.size} ${pending.items.length} ${events.length} ${sending}`)
}

it('renders on the server without a request: the empty view, with and without suspense', async () => {
  const requests: string[] = []
  const client = createSessionClient({
    baseUrl: 'http://127.0.0.1:1',
    token: 't',
    fetch: async input => {
      requests.push(String(input))
      return new Response('{}')
    },
  })
  expect('window' in globalThis).toBe(false)
  for (const suspense of [false, true]) {
    const html = renderToString(createElement(Suspense, { fallback: 'fallback' }, createElement(Panel, { client, suspense })))
    // `<!--$-->` opens a Suspense boundary that rendered its content (`<!--$!-->` would be a fallback).
    expect(html).toBe('<!--$--><p>unknown false 0 0 0 false</p><!--/$-->')
  }
  await new Promise(r => setTimeout(r, 50))
  expect(requests).toEqual([])
})
