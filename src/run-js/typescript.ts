/**
 * TypeScript support. ts-blank-space replaces type syntax with spaces, so lines and columns stay
 * where they were. Importing it loads all of `typescript` (~0.7 s in Node, ~4 MB minified), so it is
 * imported only the first time a program does not parse as JavaScript.
 */

/** ts-blank-space's signature: strips types, calls `onError` for TypeScript it cannot blank out. */
export type TypeScriptStripper = (source: string, onError?: (node: unknown) => void) => string

/**
 * Loads the stripper. Default: `import('ts-blank-space')` through a specifier bundlers do not follow,
 * so the 4 MB module is never pulled into a bundle by accident: right for Node. In a bundled browser
 * or Worker app pass `() => import('ts-blank-space')` (the bundler then splits it into a lazy chunk),
 * or `false` to run JavaScript only.
 */
export type TypeScriptLoader = () => Promise<TypeScriptStripper | { default: TypeScriptStripper }>

const cache = new WeakMap<TypeScriptLoader, Promise<TypeScriptStripper>>()

export const defaultTypeScriptLoader: TypeScriptLoader = () => {
  const specifier = 'ts-blank-space'
  return import(/* @vite-ignore */ specifier) as Promise<{ default: TypeScriptStripper }>
}

function load(loader: TypeScriptLoader): Promise<TypeScriptStripper> {
  let loading = cache.get(loader)
  if (!loading) {
    loading = loader().then((m) => (typeof m === 'function' ? m : m.default))
    loading.catch(() => cache.delete(loader))
    cache.set(loader, loading)
  }
  return loading
}

/**
 * Strips TypeScript syntax. Returns undefined when the source uses TypeScript that has no
 * blank-space form (enums, namespaces, parameter properties …) or when the stripper cannot load.
 */
export async function stripTypes(source: string, loader: TypeScriptLoader): Promise<string | undefined> {
  let strip: TypeScriptStripper
  try {
    strip = await load(loader)
  } catch {
    return undefined
  }
  let unsupported = false
  const out = strip(source, () => {
    unsupported = true
  })
  return unsupported ? undefined : out
}
