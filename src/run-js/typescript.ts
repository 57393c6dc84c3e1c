/**
 * TypeScript support. ts-blank-space replaces type syntax with spaces, so lines and columns stay
 * where they were. Importing it loads all of `typescript` (~0.7 s in Node), so it is imported only
 * the first time a program does not parse as JavaScript.
 */
type Strip = (source: string, onError?: (node: unknown) => void) => string

let loading: Promise<Strip> | undefined

function loadStripper(): Promise<Strip> {
  // The specifier is held in a variable so bundlers leave the (large) module out of the main bundle.
  const specifier = 'ts-blank-space'
  return (loading ??= import(/* @vite-ignore */ specifier).then((m: { default: Strip }) => m.default))
}

/**
 * Strips TypeScript syntax. Returns undefined when the source uses TypeScript that has no
 * blank-space form (enums, namespaces, parameter properties …) or when ts-blank-space cannot load.
 */
export async function stripTypes(source: string): Promise<string | undefined> {
  let strip: Strip
  try {
    strip = await loadStripper()
  } catch {
    loading = undefined
    return undefined
  }
  let unsupported = false
  const out = strip(source, () => {
    unsupported = true
  })
  return unsupported ? undefined : out
}
