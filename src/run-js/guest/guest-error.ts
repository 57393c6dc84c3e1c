import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { RunJsError } from '../types.js'

/** The file name programs are compiled under; stack frames in it carry program lines. */
export const PROGRAM_FILE = 'program.js'
/** Lines the wrapper puts before the program (`(async () => {`). */
export const WRAPPER_LINES = 1

/**
 * Reads a thrown guest value into `{ name, message, line, code }` property by property, without
 * calling guest functions we do not have to: only plain data leaves the context.
 */
export function readGuestError(ctx: QuickJSContext, handle: QuickJSHandle): RunJsError {
  if (ctx.typeof(handle) !== 'object') {
    return { name: 'Error', message: `the program threw ${describePrimitive(ctx, handle)}` }
  }
  const name = stringProp(ctx, handle, 'name')
  const message = stringProp(ctx, handle, 'message')
  const code = stringProp(ctx, handle, 'code')
  const stack = stringProp(ctx, handle, 'stack')
  const lineNumber = numberProp(ctx, handle, 'lineNumber')
  const error: RunJsError = { name: name ?? 'Error', message: message ?? 'the program threw an object that is not an Error' }
  const line = programLine(lineNumber, stack)
  if (line !== undefined) error.line = line
  if (code !== undefined) error.code = code
  return error
}

function programLine(lineNumber: number | undefined, stack: string | undefined): number | undefined {
  let raw = lineNumber
  const frame = stack ? new RegExp(`${PROGRAM_FILE.replace('.', '\\.')}:(\\d+)`).exec(stack) : null
  if (frame) raw = Number(frame[1])
  if (raw === undefined) return undefined
  const line = raw - WRAPPER_LINES
  return line >= 1 ? line : undefined
}

function stringProp(ctx: QuickJSContext, handle: QuickJSHandle, key: string): string | undefined {
  try {
    return ctx.getProp(handle, key).consume(h => (ctx.typeof(h) === 'string' ? ctx.getString(h) : undefined))
  } catch {
    return undefined
  }
}

function numberProp(ctx: QuickJSContext, handle: QuickJSHandle, key: string): number | undefined {
  try {
    return ctx.getProp(handle, key).consume(h => (ctx.typeof(h) === 'number' ? ctx.getNumber(h) : undefined))
  } catch {
    return undefined
  }
}

function describePrimitive(ctx: QuickJSContext, handle: QuickJSHandle): string {
  const type = ctx.typeof(handle)
  if (type === 'string') return JSON.stringify(ctx.getString(handle).slice(0, 200))
  if (type === 'number') return String(ctx.getNumber(handle))
  return type
}
