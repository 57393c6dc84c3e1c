import { CONSOLE_METHODS, VFS_API } from '../guest/guest-api.js'
import type { RunJsError } from '../types.js'

/**
 * A program that calls a name the guest API does not have (`vfs.ls`, `vfs.readFile`,
 * `console.print`) ends with QuickJS's bare `TypeError: not a function`, and a model guesses again.
 * The error that ends the run is reworded on the host to say which names exist: nothing is added to
 * the guest's objects or its calls (the hot path), and only a failed run pays for reading its line.
 */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  vfs: VFS_API.map(f => f.name),
  console: CONSOLE_METHODS,
}

/** `vfs.x(` or `vfs['x'](` (and console): the object, the name. */
const CALL = /\b(vfs|console)\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*(['"`])([^'"`]{1,64})\3\s*\])\s*\(/g

/** At most this much of the program is searched when the error has no line. */
const MAX_SCAN = 64 * 1024

/** `error` with the names that exist, if it is a call of a name that does not; else `error` itself. */
export function explainUnknownName(error: RunJsError, code: string, tools: ReadonlyMap<string, { globalName: string }>): RunJsError {
  if (error.name === 'TypeError' && error.message === 'not a function') {
    const called = unknownCall(lineOf(code, error.line)) ?? unknownCall(code.slice(0, MAX_SCAN))
    if (!called) return error
    return {
      ...error,
      message: `${called.object}.${called.name} is not a function: ${called.object} has ${NAMES[called.object].join(', ')}`,
    }
  }
  const tool = error.name === 'ReferenceError' ? /^'(external_[\w$]*)' is not defined$/.exec(error.message)?.[1] : undefined
  if (tool === undefined) return error
  const names = [...tools.values()].map(tool => tool.globalName)
  const known = names.length > 0 ? `the tools are ${names.join(', ')}` : 'this run has no tools'
  return { ...error, message: `${error.message}: ${known}` }
}

function lineOf(code: string, line: number | undefined): string {
  if (line === undefined) return ''
  let start = 0
  for (let i = 1; i < line; i++) {
    start = code.indexOf('\n', start) + 1
    if (start === 0) return ''
  }
  const end = code.indexOf('\n', start)
  return code.slice(start, end < 0 ? code.length : Math.min(end, start + MAX_SCAN))
}

function unknownCall(text: string): { object: string; name: string } | undefined {
  for (const m of text.matchAll(CALL)) {
    const object = m[1]
    const name = m[2] ?? m[4]
    if (!NAMES[object].includes(name)) return { object, name }
  }
  return undefined
}
