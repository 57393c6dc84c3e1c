/**
 * TypeScript support. ts-blank-space replaces type syntax with spaces, so lines and columns stay
 * where they were. Importing it loads all of `typescript` (~0.7 s in Node, ~4 MB minified), so it is
 * imported only the first time a program does not parse as JavaScript.
 */

/** ts-blank-space's signature: strips types, calls `onError` for TypeScript it cannot blank out. */
export type TypeScriptStripper = (source: string, onError?: (node: unknown) => void) => string

/**
 * Loads the stripper. Default: `import('agent-vfs/run-js/typescript')` (ts-blank-space with
 * `typescript`, pre-bundled into one file of the package, so neither is installed) through a
 * specifier bundlers do not follow, so the 3.5 MB module is never pulled into a bundle by accident:
 * right for Node with its node_modules (where it is missing, {@link checkDefaultTypeScriptLoader}
 * says so at start-up). In a bundled app (browser, Worker, a Node function deployed as one file) pass
 * `() => import('agent-vfs/run-js/typescript')` (a bundler splits it into a lazy chunk), or `false`
 * to run JavaScript only.
 */
export type TypeScriptLoader = () => Promise<TypeScriptStripper | { default: TypeScriptStripper }>

const cache = new WeakMap<TypeScriptLoader, Promise<TypeScriptStripper>>()

export const defaultTypeScriptLoader: TypeScriptLoader = () => {
  const specifier = 'agent-vfs/run-js/typescript'
  return import(/* @vite-ignore */ specifier) as Promise<{ default: TypeScriptStripper }>
}

let checkedDefault = false

/**
 * Says once per process, on the host's console, when the default loader cannot work here: in Node,
 * when `agent-vfs` does not resolve from this code (an app bundled into one file and deployed without
 * `node_modules/agent-vfs`), so a developer learns it at start-up, not from a model told to write
 * JavaScript. It resolves `agent-vfs/package.json` the way the loader resolves its module, and loads
 * nothing: a JSON import without its attribute fails after resolving (`ERR_IMPORT_ATTRIBUTE_MISSING`),
 * a CommonJS bundle's `require` reads the small file. Only "not found" is reported.
 */
export function checkDefaultTypeScriptLoader(): void {
  const g = globalThis as { process?: { versions?: { node?: unknown } }; navigator?: { userAgent?: unknown } }
  if (checkedDefault || typeof g.process?.versions?.node !== 'string' || g.navigator?.userAgent === 'Cloudflare-Workers') return
  checkedDefault = true
  const specifier = 'agent-vfs/package.json'
  import(/* @vite-ignore */ specifier).catch((error: { code?: unknown }) => {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' && error?.code !== 'MODULE_NOT_FOUND') return
    console.warn(
      'agent-vfs: run_js cannot load its TypeScript loader here (agent-vfs does not resolve from this code: an app bundled ' +
        'into one file and deployed without node_modules/agent-vfs?). TypeScript programs will fail and the model will be ' +
        "told to write plain JavaScript. Bundle the loader with createRunJs({ typescript: () => import('agent-vfs/run-js/typescript') }) " +
        '(3.5 MB, loaded on the first TypeScript program), or pass typescript: false to run JavaScript only without this warning.',
    )
  })
}

/** Loads the stripper once per loader (a failed load is tried again next time). */
export function loadTypeScript(loader: TypeScriptLoader): Promise<TypeScriptStripper> {
  let loading = cache.get(loader)
  if (!loading) {
    loading = loader().then(m => (typeof m === 'function' ? m : m.default))
    loading.catch(() => cache.delete(loader))
    cache.set(loader, loading)
  }
  return loading
}

/** Why a program that failed to parse as JavaScript was not run as TypeScript. */
export type NotStripped =
  /** The host passed `typescript: false`. */
  | { reason: 'off' }
  /** The loader failed (in a bundled app the default loader's `ts-blank-space` is usually missing). */
  | { reason: 'unavailable'; detail: string }
  /** TypeScript with no erasable form: enum, namespace, parameter properties, `import =`. */
  | { reason: 'unsupported' }

/** What {@link stripWith} gives: the JavaScript, or why there is none. */
export type StripOutcome = { code: string } | NotStripped

/**
 * The stripper, or why there is none. The model reads `detail`: the loader's message with the host's
 * files and folders taken out (a missing module names the folder it was looked up from).
 */
export async function stripperFor(loader: TypeScriptLoader | false): Promise<TypeScriptStripper | NotStripped> {
  if (!loader) return { reason: 'off' }
  try {
    return await loadTypeScript(loader)
  } catch (error) {
    return { reason: 'unavailable', detail: withoutHostPaths(error instanceof Error ? error.message : String(error)) }
  }
}

/** A message with absolute paths and file URLs replaced by `<host path>`. */
export function withoutHostPaths(message: string): string {
  return message.replace(/(?:file:\/\/|[A-Za-z]:\\|(?<![\w.@-])\/)[^\s'"`()]*/g, '<host path>')
}

/** Strips with a loaded stripper. */
export function stripWith(strip: TypeScriptStripper, source: string): StripOutcome {
  let unsupported = false
  const out = strip(source, () => {
    unsupported = true
  })
  return unsupported ? { reason: 'unsupported' } : { code: out }
}

/**
 * Signs that a program is TypeScript. They only label a program that already failed to parse as
 * JavaScript, so a rare false positive costs one extra sentence. Each pattern is a chain of disjoint
 * character classes: linear time on any input, as model-written input needs.
 */
const TYPESCRIPT_SIGNS: readonly RegExp[] = [
  /\b(?:const|let|var)\s+[\w$]+\s*:\s*[\w${[(]/, // const total: number
  /[(,]\s*[\w$]+\??\s*:\s*(?:string|number|boolean|any|unknown|void|never)\b/, // (a: string
  /\)\s*:\s*(?:string|number|boolean|any|unknown|void|never|Promise\s*<|[A-Z][\w$]*\s*(?:=>|\{))/, // ): number =>
  /\bas\s+(?:const|string|number|boolean|any|unknown|[A-Z][\w$]*)\b/, // x as Foo
  /\binterface\s+[\w$]+\s*(?:\{|extends\b)/,
  /\btype\s+[\w$]+\s*=/,
  /\benum\s+[\w$]+\s*\{/,
  /\b\w+<(?:string|number|boolean|any|unknown|[A-Z][\w$]*)\s*[,>[]/, // new Map<string, … (\w, not $: starts only at word starts)
]

/** The first TypeScript-looking piece of `source` with its line, e.g. "`const total: number` on line 1". */
export function typeScriptSign(program: string): string | undefined {
  // Signs show early; a bounded prefix keeps this cheap on a huge program.
  const source = program.slice(0, 100_000)
  let first: RegExpExecArray | undefined
  for (const sign of TYPESCRIPT_SIGNS) {
    const m = sign.exec(source)
    if (m && (!first || m.index < first.index)) first = m
  }
  if (!first) return undefined
  const line = source.slice(0, first.index).split('\n').length
  const text = first[0].trim().slice(0, 40)
  return `\`${text}\` on line ${line}`
}

const ENABLE = "the host enables it with createRunJs({ typescript: () => import('agent-vfs/run-js/typescript') })"

/**
 * The SyntaxError a TypeScript program gets where TypeScript was not applied, completed with what is
 * wrong and what to do (a bare "missing initializer for const variable" makes a model "fix" valid code).
 * `undefined` when the program does not look like TypeScript: then the SyntaxError is the program's own.
 */
export function explainNotStripped(message: string, program: string, why: NotStripped): string | undefined {
  if (why.reason === 'unsupported') {
    return `${message}. The program uses TypeScript that has no JavaScript form once types are erased (enum, namespace, constructor parameter properties, \`import =\`): use plain objects and constants instead, or write plain JavaScript.`
  }
  const sign = typeScriptSign(program)
  if (!sign) return undefined
  const cause =
    why.reason === 'off' ? 'TypeScript is turned off for run_js here' : `the TypeScript loader could not be loaded: ${why.detail}`
  return `${message}. This program looks like TypeScript (${sign}), but ${cause}. Write plain JavaScript without type annotations (${ENABLE}).`
}
