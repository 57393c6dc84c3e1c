/**
 * Bounds on the nesting of JSON runTask takes from a model (tool inputs, result files). It
 * stores such values as JSON (events, pending actions, execution records), and
 * JSON.stringify recurses on the host's stack: a value nested deep enough throws RangeError out of
 * runTask. Checked first, in one linear pass, so the one call fails instead.
 */

/** Deepest nesting of arrays and objects accepted from a model. */
export const MAX_JSON_DEPTH = 64

/** True when JSON text opens more than `max` arrays/objects inside each other (strings skipped), in one pass. */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** True when a value nests arrays/objects more than `max` deep; iterative, and stops at the first such path. */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth + 1 > max) return true
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}
