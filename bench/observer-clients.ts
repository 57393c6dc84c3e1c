/**
 * SSE observers in a process of their own, for `session.observers.*` in bench/session.bench.ts: the
 * clients' parsing must not count as the host's CPU. Driven over IPC by {@link observerClients}:
 * `open` opens streams (waves of 100, each wave waiting for the first event of its streams),
 * `count` waits until every stream of a group has events 1…total and reports the lost and the
 * duplicated, `close` ends a group's streams. The clients are as light as counting allows (they share
 * the 2 cores with the host): node:http, and each chunk scanned for its `id:` lines, nothing else parsed.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { request, type IncomingMessage } from 'node:http'
import { fileURLToPath } from 'node:url'

type Request =
  | { op: 'open'; group: string; url: string; token: string; paths: string[] }
  | { op: 'count'; group: string; total: number; timeoutMs: number }
  | { op: 'close'; group: string }

interface Group {
  halt: AbortController
  seen: number[][]
  readers: Array<Promise<void>>
}

/** The parent's handle on the client process. */
export interface ObserverClients {
  open(group: string, url: string, token: string, paths: string[]): Promise<void>
  count(group: string, total: number, timeoutMs?: number): Promise<{ lost: number; duplicated: number }>
  close(group: string): Promise<void>
  /** Ends the process. */
  stop(): Promise<void>
}

/** Starts the client process (this file, with this process's flags: tsx, conditions). */
export function observerClients(): ObserverClients {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let next = 0
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>()
  child.on('message', (m: { n: number; result?: unknown; error?: string }) => {
    const w = waiting.get(m.n)
    waiting.delete(m.n)
    if (m.error !== undefined) w?.reject(new Error(m.error))
    else w?.resolve(m.result)
  })
  child.on('exit', () => {
    for (const w of waiting.values()) w.reject(new Error('the observer clients exited'))
    waiting.clear()
  })
  const ask = <T>(req: Request): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const n = ++next
      waiting.set(n, { resolve, reject })
      child.send({ n, req })
    })
  return {
    open: (group, url, token, paths) => ask({ op: 'open', group, url, token, paths }),
    count: (group, total, timeoutMs = 120_000) => ask({ op: 'count', group, total, timeoutMs }),
    close: group => ask({ op: 'close', group }),
    stop: () =>
      new Promise<void>(resolve => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill()
      }),
  }
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms))

async function serve(): Promise<void> {
  const groups = new Map<string, Group>()
  /** Opens one stream (a connection the listen backlog refused is tried again); resolves once it has ended. */
  const follow = async (url: string, token: string, into: number[], signal: AbortSignal): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await new Promise<void>((resolve, reject) => {
          const req = request(url, { headers: { authorization: `Bearer ${token}` }, signal, agent: false }, res => {
            if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`))
            readIds(res, into)
            res.on('end', resolve).on('error', () => resolve())
          })
          req.on('error', error => (signal.aborted ? resolve() : reject(error)))
          req.end()
        })
      } catch (error) {
        if (signal.aborted || attempt >= 10) throw error
        await sleep(50 * (attempt + 1))
      }
    }
  }
  const handle = async (req: Request): Promise<unknown> => {
    if (req.op === 'open') {
      const group: Group = { halt: new AbortController(), seen: [], readers: [] }
      groups.set(req.group, group)
      for (let i = 0; i < req.paths.length; i++) {
        const into: number[] = []
        group.seen.push(into)
        group.readers.push(follow(`${req.url}${req.paths[i]}`, req.token, into, group.halt.signal).catch(() => undefined))
        if (i % 100 === 99 || i === req.paths.length - 1) while (group.seen.some(s => s.length === 0)) await sleep(50)
      }
      return undefined
    }
    const group = groups.get(req.group)
    if (!group) throw new Error(`no group ${req.group}`)
    if (req.op === 'count') {
      const deadline = Date.now() + req.timeoutMs
      while (group.seen.some(s => s.length < req.total) && Date.now() < deadline) await sleep(100)
      let lost = 0
      let duplicated = 0
      for (const s of group.seen) {
        const set = new Set(s)
        duplicated += s.length - set.size
        for (let q = 1; q <= req.total; q++) if (!set.has(q)) lost++
      }
      return { lost, duplicated }
    }
    group.halt.abort()
    await Promise.all(group.readers)
    groups.delete(req.group)
    return undefined
  }
  process.on('message', (m: { n: number; req: Request }) => {
    handle(m.req).then(
      result => process.send!({ n: m.n, result }),
      (error: Error) => process.send!({ n: m.n, error: String(error?.message ?? error) }),
    )
  })
  process.on('disconnect', () => process.exit(0))
}

/**
 * Pushes the `id:` of every SSE message of `res` to `into`. SSE lines end with `\n` (ours do); a
 * message's `id:` line is the only line that starts with `id: `. A line cut between two chunks is
 * kept until its end arrives.
 */
function readIds(res: IncomingMessage, into: number[]): void {
  let rest = ''
  res.setEncoding('latin1')
  res.on('data', (chunk: string) => {
    // `text` starts at the start of a line; lines up to `end` are whole.
    const text = rest + chunk
    const end = text.lastIndexOf('\n') + 1
    rest = text.slice(end)
    for (let at = text.startsWith('id: ') ? 0 : nextId(text, 0); at >= 0 && at < end;) {
      const eol = text.indexOf('\n', at)
      into.push(Number(text.slice(at + 4, eol)))
      at = nextId(text, eol)
    }
  })
}

/** Where the next line that starts with `id: ` begins, from `from` on (-1: none). */
function nextId(text: string, from: number): number {
  const i = text.indexOf('\nid: ', from)
  return i < 0 ? -1 : i + 1
}

if (process.argv.includes('--child')) await serve()
