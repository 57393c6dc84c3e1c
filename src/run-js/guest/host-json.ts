/**
 * JSON the host parses for a guest or a tool: bounded in size and depth, and never throwing into the
 * runner. A guest can hand the host any string; parsed as is, a 10,000-deep one becomes a value that
 * breaks whoever walks it next (`JSON.stringify`, a structured clone, a database driver).
 */

/** Deepest array/object nesting the host accepts in JSON from a guest or a tool. */
export const MAX_JSON_DEPTH = 256

/** Nesting depth of a JSON text, by one linear scan that skips strings. */
export function jsonDepth(json: string): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c === 34 /* " */) {
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i)
        if (d === 92 /* \ */) i++
        else if (d === 34) break
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) max = depth
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--
  }
  return max
}

/** Parses `json`, or says in a sentence why it was refused. `what` names the value for that sentence. */
export function parseBoundedJson(json: string, what: string, maxDepth = MAX_JSON_DEPTH): { value: unknown } | { error: string } {
  const depth = jsonDepth(json)
  if (depth > maxDepth)
    return {
      error: `${what} is nested ${depth} levels deep; at most ${maxDepth} levels can cross between the program and the host`,
    }
  try {
    return { value: JSON.parse(json) }
  } catch (error) {
    return { error: `${what} is not valid JSON: ${safeMessage(error)}` }
  }
}

/** `JSON.stringify` for host values on their way to a guest, or why it could not be done. */
export function stringifyForGuest(value: unknown, what: string): { json: string } | { error: string } {
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch (error) {
    return { error: `${what} is not JSON-serializable: ${safeMessage(error)}` }
  }
  if (json === undefined) return { error: `${what} is not JSON-serializable (a ${typeof value})` }
  const depth = jsonDepth(json)
  if (depth > MAX_JSON_DEPTH)
    return {
      error: `${what} is nested ${depth} levels deep; at most ${MAX_JSON_DEPTH} levels can cross between the host and the program`,
    }
  return { json }
}

/** The message of anything thrown, without running more than one getter, and never throwing. */
export function safeMessage(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message)
    return String(error)
  } catch {
    return 'an unreadable value was thrown'
  }
}

/** UTF-8 length of a string without allocating its bytes. */
export function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4
      i++
    } else n += 3
  }
  return n
}
