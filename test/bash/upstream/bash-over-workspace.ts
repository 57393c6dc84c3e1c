// just-bash's own tests with agent-vfs's WorkspaceFs under them (see README.md): every `new Bash(...)`
// that brings no `fs` of its own gets a fresh memory-store workspace seeded with its `files` (and the
// directories of just-bash's default layout), read and written through WorkspaceFs. After each exec
// the line's staged writes land whatever its exit code: these tests exercise the filesystem and
// expect a failed line's writes to stay, as bash does (createBash lands a line only when it exits 0).
// @ts-expect-error resolved by vitest.config.ts to just-bash's source (src/Bash.ts of the release)
import { Bash as RealBash } from 'just-bash-source/Bash'
import { memoryStore, openVfs, type Vfs } from '../../../src/index.js'
import { WorkspaceFs } from '../../../src/bash/workspace-fs.js'
import { applyStaged } from '../../../src/bash/apply.js'

type Options = { fs?: unknown; files?: Record<string, unknown>; cwd?: string; env?: Record<string, string> } & Record<string, unknown>
type Result = { stdout: string; stderr: string; exitCode: number }
const Base = RealBash as new (options?: Options) => { exec(script: string, options?: unknown): Promise<Result> }

let scopes = 0
// Not /bin nor /usr/bin: without /usr/bin, just-bash runs its commands by name (as under createBash).
const LAYOUT = ['/home/user', '/tmp']

/** A Vfs whose calls wait until the workspace is open and seeded (the Bash constructor is synchronous). */
function lazyVfs(ready: Promise<Vfs>): Vfs {
  return new Proxy({} as Vfs, {
    get(_target, name) {
      if (typeof name === 'symbol') return undefined
      return async (...args: unknown[]) => ((await ready) as unknown as Record<string, (...a: unknown[]) => unknown>)[name](...args)
    },
  })
}

async function seed(files: Record<string, unknown> | undefined, dirs: string[]): Promise<Vfs> {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'just-bash', scope: `s${++scopes}` })
  for (const dir of dirs) await vfs.mkdir(dir).catch(() => undefined)
  for (const [path, entry] of Object.entries(files ?? {})) {
    let data: unknown = typeof entry === 'function' ? await (entry as () => unknown)() : entry
    if (data && typeof data === 'object' && !(data instanceof Uint8Array) && 'content' in data) data = data.content
    if (typeof data === 'function') data = await (data as () => unknown)()
    await vfs.writeFile(path, data as string | Uint8Array)
  }
  return vfs
}

export class Bash extends Base {
  private readonly workspace?: WorkspaceFs

  constructor(options: Options = {}) {
    if (options.fs) {
      super(options)
      return
    }
    const defaultLayout = !options.cwd && !options.files
    const cwd = options.cwd || (defaultLayout ? '/home/user' : '/')
    const dirs = [...(defaultLayout ? LAYOUT : []), ...(cwd !== '/' ? [cwd] : [])]
    const fs = new WorkspaceFs(lazyVfs(seed(options.files, dirs)), { maxStagedBytes: 64 * 1024 * 1024, maxStagedPaths: 100_000 })
    super({ ...options, files: undefined, fs, cwd, env: { HOME: defaultLayout ? '/home/user' : '/', ...options.env } })
    this.workspace = fs
  }

  override async exec(script: string, options?: unknown): Promise<Result> {
    if (!this.workspace) return super.exec(script, options)
    try {
      return await super.exec(script, options)
    } finally {
      // What the line wrote lands, with what a test wrote through `bash.fs` before it.
      await applyStaged(this.workspace.staging)
      this.workspace.begin()
    }
  }
}
