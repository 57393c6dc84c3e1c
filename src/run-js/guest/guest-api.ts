import type { Vfs } from '../../vfs/types.js'
import type { RunClock } from '../engine/clock.js'
import { DEFAULT_LIMITS } from '../engine/limits.js'

/**
 * The guest API as one table: it generates the host functions a program sees (`vfs.*`, `console.*`),
 * their dispatch, and the description a model reads. Nothing about the API is written twice.
 */

/** What a host function hands back to the guest. */
export type Answer =
  { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'json'; value: unknown } | { kind: 'none' }

/**
 * How a guest argument is taken: `path` a string (a path or pattern); `data` a string, bytes or any
 * JSON value; `options` an optional plain JSON object; `input` an optional JSON value.
 */
export type ArgKind = 'path' | 'data' | 'options' | 'input'

/** Guest data as the host receives it. */
export type Data = { text: string } | { bytes: Uint8Array }

/** What a vfs call may use of its run. */
export interface VfsCall {
  vfs: Vfs
  /** The run's signal and deadline, for searches. */
  clock: Pick<RunClock, 'signal' | 'deadline'>
  /** The workspace's synchronous text reader, when it has one. */
  readText?: (path: string) => string | undefined
  /** The runner's archive of programs, if any. */
  archiveDir?: string
  /** What the run may still write (bytes, files); every `vfs.write` is charged before it starts. */
  writes?: { charge(path: string, data: string | Uint8Array): void }
  /**
   * Does the call elsewhere: in a worker thread, the host thread does it (and journals it under the
   * guest's name, `vfs.write`, with the guest's arguments, as an in-thread run does). The write
   * budget is charged here first.
   */
  remote?: (name: string, args: unknown[]) => Promise<Answer>
}

/** One function of the guest's `vfs` object. */
export interface GuestFunction {
  name: string
  args: ReadonlyArray<{ name: string; kind: ArgKind; optional?: boolean; keys?: string }>
  /** What it resolves to, for the model. */
  returns: string
  /** Answers at once when the workspace can (reads served from memory); undefined otherwise. */
  now?: (c: VfsCall, args: unknown[]) => Answer | undefined
  call: (c: VfsCall, args: unknown[]) => Promise<Answer>
}

const none: Answer = { kind: 'none' }
const json = (value: unknown): Answer => ({ kind: 'json', value })

/** Options a guest passes to a search, with the run's signal and deadline on top (never the guest's). */
function searchOptions(options: unknown, c: VfsCall): Record<string, unknown> {
  return { ...(options as object), signal: c.clock.signal, deadline: c.clock.deadline }
}

/**
 * Leaves the runner's archive out of a search's hits, unless the search names it: every run archives
 * its source before it runs, so a program grepping for its own literal would find itself, one more
 * time per run.
 */
function outsideArchive<T>(c: VfsCall, asked: unknown[], hits: T[], path: (hit: T) => string): T[] {
  const dir = c.archiveDir
  if (!dir || JSON.stringify(asked).includes(dir)) return hits
  return hits.filter(hit => !path(hit).startsWith(`${dir}/`))
}

const LOCAL_API: readonly GuestFunction[] = [
  {
    name: 'read',
    args: [{ name: 'path', kind: 'path' }],
    returns: 'string',
    now: (c, [path]) => {
      const text = c.readText?.(path as string) // undefined: the workspace cannot answer now
      return text === undefined ? undefined : { kind: 'text', text }
    },
    call: async (c, [path]) => ({ kind: 'text', text: await c.vfs.readFile(path as string, 'utf8') }),
  },
  {
    name: 'readBytes',
    args: [{ name: 'path', kind: 'path' }],
    returns: 'Uint8Array',
    call: async (c, [path]) => ({ kind: 'bytes', bytes: await c.vfs.readFile(path as string) }),
  },
  {
    name: 'write',
    args: [
      { name: 'path', kind: 'path' },
      { name: 'data', kind: 'data' },
    ],
    returns: 'string | bytes | JSON value',
    call: async (c, [path, data]) => {
      const d = data as Data
      c.writes?.charge(path as string, 'text' in d ? d.text : d.bytes)
      await c.vfs.writeFile(path as string, 'text' in d ? d.text : d.bytes)
      return none
    },
  },
  {
    name: 'list',
    args: [
      { name: 'path', kind: 'path' },
      { name: 'options', kind: 'options', optional: true, keys: 'recursive' },
    ],
    returns: 'string[]',
    call: async (c, [path, options]) =>
      json(await c.vfs.readdir(path as string, { recursive: (options as { recursive?: unknown }).recursive === true })),
  },
  {
    name: 'stat',
    args: [{ name: 'path', kind: 'path' }],
    returns: '{ type, size, version, … }',
    call: async (c, [path]) => json(await c.vfs.stat(path as string)),
  },
  {
    name: 'exists',
    args: [{ name: 'path', kind: 'path' }],
    returns: 'boolean',
    call: async (c, [path]) => json(await c.vfs.exists(path as string)),
  },
  {
    name: 'remove',
    args: [
      { name: 'path', kind: 'path' },
      { name: 'options', kind: 'options', optional: true, keys: 'recursive' },
    ],
    returns: 'void',
    call: async (c, [path, options]) => {
      const stat = await c.vfs.stat(path as string)
      if (stat.type === 'directory')
        await c.vfs.rmdir(path as string, { recursive: (options as { recursive?: unknown }).recursive === true })
      else await c.vfs.deleteFile(path as string)
      return none
    },
  },
  {
    name: 'glob',
    args: [{ name: 'pattern', kind: 'path' }],
    returns: 'string[]',
    call: async (c, [pattern]) => json(outsideArchive(c, [pattern], await c.vfs.glob(pattern as string, searchOptions({}, c)), p => p)),
  },
  {
    name: 'grep',
    args: [
      { name: 'pattern', kind: 'path' },
      { name: 'options', kind: 'options', optional: true, keys: 'regex, ignoreCase, paths, context, maxMatches' },
    ],
    returns: '{ matches: [{ path, line, column, text }], truncated }',
    call: async (c, [pattern, options]) => {
      const found = await c.vfs.grep(pattern as string, searchOptions(options, c))
      return json({ ...found, matches: outsideArchive(c, [pattern, options], found.matches, m => m.path) })
    },
  },
]

/** The guest's `vfs` functions: done here, or by {@link VfsCall.remote} when the run has one. */
export const VFS_API: readonly GuestFunction[] = LOCAL_API.map(f => ({ ...f, call: f.name === 'write' ? chargedRemote(f) : remote(f) }))

function remote(f: GuestFunction): GuestFunction['call'] {
  return (c, args) => (c.remote ? c.remote(f.name, args) : f.call(c, args))
}

/** `vfs.write` elsewhere is charged to the run's write budget here, before it crosses. */
function chargedRemote(f: GuestFunction): GuestFunction['call'] {
  return (c, args) => {
    if (!c.remote) return f.call(c, args)
    try {
      const d = args[1] as Data
      c.writes?.charge(args[0] as string, 'text' in d ? d.text : d.bytes)
    } catch (error) {
      return Promise.reject(error)
    }
    return c.remote(f.name, args)
  }
}

/** A guest `vfs` function by name, as the host does it for a run elsewhere (no remote, no write budget: charged there). */
export const LOCAL_VFS_API: ReadonlyMap<string, GuestFunction> = new Map(LOCAL_API.map(f => [f.name, f]))

/** Console methods; each joins its arguments with spaces into one log line. */
export const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const

/** The signature of a table entry as a model reads it: `vfs.list(path, { recursive })`. */
function signature(f: GuestFunction): string {
  const args = f.args.map(a => (a.kind === 'options' ? `{ ${a.keys} }` : a.name)).join(', ')
  const returns = f.returns === 'void' ? '' : f.returns.startsWith('string | bytes') ? '' : ` → ${f.returns}`
  const shown = f.name === 'write' ? 'write(path, string | bytes | JSON value)' : `${f.name}(${args})`
  return `vfs.${shown}${returns}`
}

/** What a program can use, in the words a model reads. */
export function describeGuestApi(options: { vfs?: boolean; tools?: readonly string[]; programBytes?: number } = {}): string {
  const { vfs = true, tools = [], programBytes } = options
  const available = [
    ...(vfs ? VFS_API.map(signature) : []),
    ...tools.map(name => `${name}(input) → JSON`),
    `console.${CONSOLE_METHODS.slice(0, 4).join('/')}`,
  ]
  const size = programBytes
    ? `, program size (${programBytes % (1024 * 1024) === 0 ? `${programBytes / 1024 / 1024} MiB` : `${Math.round(programBytes / 1024)} KiB`})`
    : ', program size'
  return [
    `Run a JavaScript or TypeScript program (the body of an async function; \`return\` gives the result) in a sandbox${vfs ? ' over the workspace' : ''}.`,
    `Available: await ${available.join(', ')}.`,
    ...(vfs
      ? [
          'vfs.grep takes literal text, or with { regex: true } an RE2 regular expression (no backreferences or lookaround); vfs.glob takes *, **, ?, [ab], {a,b}.',
        ]
      : []),
    `${vfs ? "Modules: import { f } from '/skills/x.js' (workspace paths only). " : ''}There is no network${tools.includes('external_fetch') ? ' except external_fetch(url | { url, method, headers, body })' : ''}, no timers, no require. Only JSON values cross back: return plain data. Limits: memory, time, output size${size}; large results are saved to a file whose path is returned.`,
    vfs
      ? 'Prefer one program that reads, filters and aggregates over many separate file calls.'
      : 'Prefer one program that calls several tools and aggregates over many separate calls.',
  ].join('\n')
}

/** The model-facing description of `run_js` over a workspace (no tools). */
export const RUN_JS_DESCRIPTION: string = describeGuestApi({ vfs: true, programBytes: DEFAULT_LIMITS.programBytes })
