/**
 * `If-Match` (RFC 9110 §13.1.1) against our entity tags, which are a file's version in quotes
 * (`"12"`). The comparison is strong, as the RFC requires for If-Match: a weak tag (`W/"12"`) never
 * matches, since a version names exact bytes.
 */
export type IfMatch =
  /** `*`: any current file. */
  | { any: true }
  /** The versions the client accepts (tags that are not versions of ours are kept out: they never match). */
  | { any: false; versions: number[] }

/** The entity tag of a file version. */
export function etagOf(version: number): string {
  return `"${version}"`
}

/** One entity tag, then a comma or the end; `etagc` is any visible ASCII but `"`, or obs-text. */
const ENTITY_TAG = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(,|$)/y

/** Parses an If-Match value; a value that is not `*` or a list of entity tags throws a message for the client. */
export function parseIfMatch(value: string): IfMatch {
  if (value.trim() === '*') return { any: true }
  const versions: number[] = []
  ENTITY_TAG.lastIndex = 0
  let tags = 0
  while (ENTITY_TAG.lastIndex < value.length) {
    const at = ENTITY_TAG.lastIndex
    const m = ENTITY_TAG.exec(value)
    // A trailing comma must be followed by another tag.
    if (!m || (m[3] === ',' && ENTITY_TAG.lastIndex === value.length)) throw new Error(malformed(value, at))
    tags++
    if (!m[1] && /^(0|[1-9]\d{0,14})$/.test(m[2]!)) versions.push(Number(m[2]))
  }
  if (tags === 0) throw new Error(malformed(value, 0))
  return { any: false, versions }
}

function malformed(value: string, at: number): string {
  return `the If-Match header is not "*" or a list of entity tags (near character ${at + 1} of ${JSON.stringify(value.slice(0, 100))}): send the ETag exactly as a GET returned it, quotes included, e.g. If-Match: "12"`
}
