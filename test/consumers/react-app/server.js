import { createReadStream, existsSync } from 'node:fs'
import { createServer } from 'node:http'
import { extname, join } from 'node:path'
import { Readable } from 'node:stream'
import { memoryStore } from 'agent-vfs'
import { scriptedModel } from 'agent-vfs/agent'
import { createSessionApp, createSessionHost, mintToken } from 'agent-vfs/session'

// A session host as an app serves it: the API under /api, the built pages (dist/) beside it. The
// scripted model does the appendix job in small: it asks for the title, writes /outputs/appendix.md
// (a write outside /work: a person approves it), then says so.
const secret = 'consumer-react-secret-0123456789abcdef'
const title = view => {
  const asked = view.results.find(r => r.toolName === 'ask_user' && r.ok)
  return asked && String(typeof asked.value === 'string' ? asked.value : asked.value?.answer)
}
const appendix = {
  setup: () => ({
    model: scriptedModel(
      view => {
        if (!title(view))
          return {
            toolCalls: [{ toolName: 'ask_user', input: { question: 'What title should the appendix have?', options: ['Season One'] } }],
          }
        if (!view.results.some(r => r.toolName === 'write_file' && r.ok))
          return { toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/appendix.md', content: `# ${title(view)}\n` } }] }
        return { text: 'The appendix is in /outputs/appendix.md.' }
      },
      { chunkChars: 6, chunkDelayMs: 5 },
    ),
    policy: [{ decision: 'ask', access: 'write', exceptPaths: ['/work/**'], reason: 'writes outside /work need approval' }],
  }),
}
const host = createSessionHost({ store: memoryStore(), agents: { appendix } })
const app = createSessionApp(host, { auth: { secret }, heartbeatMs: 200 })
const token = await mintToken(secret, 'ana')
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' }

async function api(req, res, path) {
  const aborted = new AbortController()
  res.on('close', () => aborted.abort())
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req)
  const request = new Request(`http://localhost${path}`, {
    method: req.method,
    headers: req.headers,
    body,
    duplex: 'half',
    signal: aborted.signal,
  })
  const response = await app.fetch(request)
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body) for await (const chunk of response.body) res.write(chunk)
  res.end()
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost')
  // A fresh session for a page that has none yet (the page keeps its id in the URL, so a reload resumes it).
  if (url.pathname === '/new-session')
    return void app
      .fetch(
        new Request('http://localhost/sessions', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"profile":"appendix"}',
        }),
      )
      .then(r => r.json())
      .then(({ id }) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, token })))
  if (url.pathname.startsWith('/api/'))
    return void api(req, res, url.pathname.slice(4) + url.search).catch(error =>
      res.headersSent ? res.destroy(error) : res.writeHead(500).end(String(error)),
    )
  const file = join('dist', url.pathname === '/' ? 'index.html' : url.pathname)
  if (!file.startsWith('dist') || !existsSync(file)) return void res.writeHead(404).end()
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' })
  createReadStream(file).pipe(res)
})
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('listening'))
