import type { QuickJSRuntime } from 'quickjs-emscripten-core'
import { VfsError } from '../../contract/errors.js'
import type { Vfs } from '../../vfs/types.js'
import type { ResolvedLimits } from '../engine/limits.js'
import type { RunJsImports } from '../types.js'
import { PROGRAM_FILE } from '../guest/guest-error.js'
import { utf8Length } from '../guest/host-json.js'
import { findImports } from './import-scan.js'
import { stripWith, type NotStripped, type TypeScriptStripper } from './typescript.js'

/*
 * ES-module imports from the workspace (see RunJsImports in types.ts): specifiers resolve to
 * workspace paths, every module is read through the run's own workspace view (its path policy
 * holds), read ahead of compiling, bounded, and archived with the run.
 */

/** One module a run loaded, as archived with it. */
export interface LoadedModule {
  path: string
  /** The file as read (before TypeScript was stripped). */
  source: string
  bytes: number
}

/** File types a module may have; `.ts`/`.mts` are stripped of types first. */
const EXTENSIONS = /\.(?:m?js|m?ts)$/
const TYPESCRIPT = /\.m?ts$/

/** An import the host refuses or cannot load: the guest sees `ImportError` with a code. */
export class ImportError extends Error {
  override readonly name = 'ImportError'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The workspace path `specifier` names when imported from module `base` (a path, or the program). */
export function resolveSpecifier(base: string, specifier: string, options: RunJsImports): string {
  let path: string
  if (specifier.startsWith('./') || specifier.startsWith('../')) {
    const dir = base === PROGRAM_FILE ? '/' : base.slice(0, base.lastIndexOf('/') + 1)
    path = dir + specifier
  } else if (specifier.startsWith('/') && !specifier.startsWith('//')) {
    path = specifier
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) || specifier.startsWith('//')) {
    throw new ImportError(
      'EACCES',
      `cannot import ${JSON.stringify(specifier)}: modules come from the workspace only (no URLs, no network)`,
    )
  } else {
    const mapped = mapBare(specifier, options.map)
    if (mapped === undefined)
      throw new ImportError(
        'ENOENT',
        `cannot import ${JSON.stringify(specifier)}: bare module names are not available here; import a workspace file such as '/skills/x.js' or './x.js' (the host can map names to files with imports.map)`,
      )
    path = mapped
  }
  path = normalize(path, specifier)
  if (!EXTENSIONS.test(path))
    throw new ImportError(
      'EINVAL',
      `cannot import ${JSON.stringify(specifier)}: a module is a .js, .mjs, .ts or .mts file (read data with vfs.read)`,
    )
  const roots = options.roots
  if (roots && !roots.some(root => path.startsWith(root.endsWith('/') ? root : root + '/')))
    throw new ImportError('EACCES', `cannot import ${path}: modules may come only from ${roots.join(', ')}`)
  return path
}

function mapBare(specifier: string, map: RunJsImports['map']): string | undefined {
  if (!map) return undefined
  if (Object.hasOwn(map, specifier)) return map[specifier]
  let best: string | undefined
  for (const key of Object.keys(map)) if (key.endsWith('/') && specifier.startsWith(key) && key.length > (best?.length ?? 0)) best = key
  return best === undefined ? undefined : map[best] + specifier.slice(best.length)
}

/** `.` and `..` resolved; `..` above `/`, backslashes and NUL refused. */
function normalize(path: string, specifier: string): string {
  if (/[\\\0]/.test(path)) throw new ImportError('EINVAL', `cannot import ${JSON.stringify(specifier)}: invalid character in the path`)
  const parts: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (parts.length === 0)
        throw new ImportError('EACCES', `cannot import ${JSON.stringify(specifier)}: it climbs above the workspace root`)
      parts.pop()
    } else parts.push(part)
  }
  return '/' + parts.join('/')
}

/** Names of refused specifiers start with this (no workspace path does). */
const REFUSED = 'refused:'

/** What the run's `until` (run.ts) resolves to when the clock stopped first. */
export const STOPPED: unique symbol = Symbol('stopped')

/** What reading a program's modules needs. */
export interface ModuleGraphOptions {
  vfs: Vfs | undefined
  imports: RunJsImports
  limits: Pick<ResolvedLimits, 'modules' | 'moduleBytes' | 'importDepth'>
  /** Loads ts-blank-space for `.ts` modules (with the bound run.ts gives TypeScript loading). */
  loadStripper: () => Promise<TypeScriptStripper | NotStripped | typeof STOPPED>
  /** The run's `until` (run.ts): waits for host work unless the run stops first (the run's deadline covers reading modules). */
  until: <T>(work: Promise<T>) => Promise<T | typeof STOPPED>
  /**
   * The run's clock (`check()`: true once it has run out). Reads that settle without a turn of the
   * event loop never let the run's timer fire, so the graph looks at the clock itself.
   */
  clock: { check(): boolean }
}

/**
 * Imports (static, dynamic and re-exports, counted where they are written) a run's program and
 * modules may hold together, per module a run may load: the scan is bounded by count as well as by
 * the bytes of the program (`programBytes`) and of the modules (`moduleBytes`).
 */
export const IMPORTS_PER_MODULE = 64

/** How many imports a run's program and modules may hold together. */
export function maxImports(limits: Pick<ResolvedLimits, 'modules'>): number {
  return IMPORTS_PER_MODULE * limits.modules
}

/**
 * The modules of one program, read ahead: QuickJS's loader is synchronous in the build run_js
 * uses, so every module a program imports statically is read (and stripped) before it compiles.
 * Bounded in count, total bytes and depth; cycles are allowed (each module is read once).
 */
export class ModuleGraph {
  /** Module sources QuickJS gets, by path (JavaScript: TypeScript already stripped). */
  private readonly code = new Map<string, string>()
  /** Why a dynamic `import('…')` found ahead could not be read: told when the program reaches it. */
  private readonly failed = new Map<string, { code: string; message: string }>()
  readonly loaded: LoadedModule[] = []
  private bytes = 0
  /** Reads tried (those that failed count too: each costs the host a read). */
  private reads = 0
  /** Imports found so far (see {@link IMPORTS_PER_MODULE}). */
  private found = 0
  private strip: TypeScriptStripper | undefined

  constructor(private readonly options: ModuleGraphOptions) {}

  /** Reads everything `specifiers` (the program's imports) need; an ImportError for a static one that fails. */
  async read(program: string): Promise<typeof STOPPED | void> {
    const queue: Array<{ base: string; source: string; depth: number }> = [{ base: PROGRAM_FILE, source: program, depth: 0 }]
    const { limits, clock } = this.options
    const maxFound = maxImports(limits)
    while (queue.length) {
      if (clock.check()) return STOPPED
      const { base, source, depth } = queue.shift()!
      const imports = findImports(source, maxFound - this.found + 1)
      this.found += imports.length
      if (this.found > maxFound)
        throw new ImportError(
          'E2BIG',
          `${where(base)}: a run's program and modules may hold at most ${maxFound} imports (${IMPORTS_PER_MODULE} per module of limits.modules)`,
        )
      for (const found of imports) {
        if (found.typeOnly) continue // erased with the types
        let path: string
        try {
          path = resolveSpecifier(base, found.specifier, this.options.imports)
        } catch (error) {
          if (!found.dynamic || !(error instanceof ImportError)) throw this.from(base, error)
          continue // a dynamic import fails when (and if) the program reaches it
        }
        if (this.code.has(path) || this.failed.has(path)) continue
        if (depth + 1 > limits.importDepth)
          throw new ImportError(
            'E2BIG',
            `cannot import ${path} from ${where(base)}: imports nest deeper than ${limits.importDepth} (limits.importDepth)`,
          )
        if (this.reads >= limits.modules) {
          const message = `cannot import ${path}: a run may read at most ${limits.modules} modules (limits.modules)`
          if (!found.dynamic) throw new ImportError('E2BIG', message)
          this.failed.set(path, { code: 'E2BIG', message }) // told if the program reaches it; never read
          continue
        }
        this.reads++
        let text: string | typeof STOPPED
        try {
          text = await this.fetch(path)
        } catch (error) {
          if (!found.dynamic || error instanceof ImportError) throw this.from(base, error)
          this.failed.set(path, { code: 'ENOENT', message: String((error as Error)?.message ?? error) })
          continue
        }
        if (text === STOPPED || clock.check()) return STOPPED
        queue.push({ base: path, source: text, depth: depth + 1 })
      }
    }
  }

  /**
   * A name for a specifier the host refused, so that the guest gets the reason when the loader is
   * asked for it (QuickJS replaces a normalizer's own error with "could not load module").
   */
  refuse(error: unknown): string {
    const name = `${REFUSED}${this.failed.size}`
    this.failed.set(name, { code: 'EACCES', message: (error as Error)?.message ?? String(error) })
    return name
  }

  /** The loader QuickJS calls: only what was read ahead. */
  load(path: string): string | Error {
    const code = this.code.get(path)
    if (code !== undefined) return code
    const failed = this.failed.get(path)
    if (failed !== undefined) return new ImportError(failed.code, failed.message)
    return new ImportError('ENOENT', `${path} was not loaded: import modules with a string literal (no computed names)`)
  }

  private async fetch(path: string): Promise<string | typeof STOPPED> {
    const { vfs, limits } = this.options
    if (!vfs) throw new ImportError('ENOENT', `cannot import ${path}: this run has no workspace`)
    const read = await this.options.until(vfs.readFile(path, 'utf8'))
    if (read === STOPPED) return read
    this.bytes += utf8Length(read)
    if (this.bytes > limits.moduleBytes)
      throw new ImportError(
        'E2BIG',
        `cannot import ${path}: the modules of a run may hold at most ${limits.moduleBytes} bytes (limits.moduleBytes)`,
      )
    let code = read
    if (TYPESCRIPT.test(path)) {
      const stripped = await this.stripTypes(path, read)
      if (stripped === STOPPED) return stripped
      code = stripped
    }
    this.code.set(path, code)
    this.loaded.push({ path, source: read, bytes: utf8Length(read) })
    return code
  }

  private async stripTypes(path: string, source: string): Promise<string | typeof STOPPED> {
    if (!this.strip) {
      const got = await this.options.loadStripper()
      if (got === STOPPED) return got
      if (typeof got !== 'function')
        throw new ImportError(
          'EINVAL',
          `cannot import ${path}: TypeScript is not available on this host (${got.reason === 'unavailable' ? got.detail : got.reason})`,
        )
      this.strip = got
    }
    const out = stripWith(this.strip, source)
    if (!('code' in out))
      throw new ImportError('EINVAL', `cannot import ${path}: its TypeScript has no erasable form (enum, namespace, parameter properties)`)
    return out.code
  }

  /** An error while reading `base`'s imports, naming the importer; a workspace error keeps its code. */
  private from(base: string, error: unknown): ImportError {
    if (error instanceof ImportError) return error
    // From another thread a workspace error arrives rebuilt, with its code but not its class.
    const own = (error as { code?: unknown })?.code
    const code = error instanceof VfsError ? error.code : typeof own === 'string' && /^E[A-Z0-9]+$/.test(own) ? own : 'EIO'
    return new ImportError(code, `${where(base)}: ${(error as Error)?.message ?? String(error)}`)
  }
}

function where(base: string): string {
  return base === PROGRAM_FILE ? 'the program' : base
}

/** Points `rt`'s module loader at `graph` (removed again at the run's teardown). */
export function installModuleLoader(rt: QuickJSRuntime, graph: ModuleGraph, imports: RunJsImports): void {
  rt.setModuleLoader(
    path => moduleAnswer(() => graph.load(path)),
    (base, requested) => {
      try {
        return resolveSpecifier(base, requested, imports)
      } catch (error) {
        return graph.refuse(error)
      }
    },
  )
}

/** A loader's answer: an error goes to the guest as its exception, never into wasm as a throw. */
function moduleAnswer(fn: () => string | Error): string | { error: Error } {
  try {
    const out = fn()
    return typeof out === 'string' ? out : { error: out }
  } catch (error) {
    return { error: error instanceof Error ? error : new ImportError('EINVAL', String(error)) }
  }
}

/** The module a program with imports compiles as: its declarations on line 1, so line N stays line N. */
export function moduleSource(declarations: readonly string[], body: string): string {
  return `${declarations.join(' ')} export default (async () => {\n${body}\n})`
}

/** The runner's `imports` option, checked once (a bad one throws from createRunJs). */
export function checkImports(imports: RunJsImports | undefined): RunJsImports {
  if (imports === undefined) return {}
  if (typeof imports !== 'object' || imports === null) throw new TypeError('run_js: options.imports must be an object { roots?, map? }')
  const absolute = (p: unknown, what: string): string => {
    if (typeof p !== 'string' || !p.startsWith('/') || p.split('/').some(part => part === '..' || part === '.'))
      throw new TypeError(`run_js: ${what} must be an absolute workspace path such as '/skills', got ${JSON.stringify(p)}`)
    return p
  }
  const roots = imports.roots?.map((r, i) => absolute(r, `imports.roots[${i}]`).replace(/\/+$/, '') || '/')
  const map =
    imports.map && Object.fromEntries(Object.entries(imports.map).map(([k, v]) => [k, absolute(v, `imports.map[${JSON.stringify(k)}]`)]))
  return { ...(roots ? { roots } : {}), ...(map ? { map } : {}) }
}
