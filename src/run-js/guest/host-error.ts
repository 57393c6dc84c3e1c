import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { GuestError } from '../types.js'
import { safeMessage } from './host-json.js'

/**
 * Host errors on their way into the guest: only name, message and a workspace error code cross,
 * bounded like any other string. Never throws for what the host threw.
 */

/** Keeps name, message and a workspace error code; nothing else of the host error crosses. Never throws. */
export function toGuestError(error: unknown): GuestError {
  try {
    if (error instanceof Error) {
      const code = (error as { code?: unknown }).code
      const name = typeof error.name === 'string' && error.name ? error.name : 'Error'
      return { name, message: safeMessage(error), ...(typeof code === 'string' ? { code } : {}) }
    }
    return { name: 'Error', message: safeMessage(error) }
  } catch {
    return { name: 'Error', message: 'the host threw a value that could not be read' }
  }
}

/** A value too large to cross, either way: a RangeError with code E2BIG. */
export function tooLarge(what: string, size: number, max: number, toGuest = false): GuestError {
  const message = toGuest
    ? `the value (${size} bytes) is too large for this run's memory: at most ${max} bytes can be handed to a program at once`
    : `${what} (${size} bytes) is too large: at most ${max} bytes can cross to the host at once (a quarter of the run's memory); write it in parts`
  return { name: 'RangeError', message, code: 'E2BIG' }
}

/** Cuts a message that would not fit, like any other string. */
function clip(message: string, maxBytes: number): string {
  if (message.length * 3 <= maxBytes) return message
  const keep = Math.max(0, Math.floor(maxBytes / 3) - 1)
  return message.length > keep ? message.slice(0, keep) + '…' : message
}

/** A guest Error object for `error` (the caller owns the handle). */
export function newGuestError(ctx: QuickJSContext, error: GuestError, maxBytes: number): QuickJSHandle {
  const handle = ctx.newError({
    name: error.name.replace(/\u0000/g, ''),
    message: clip(error.message, maxBytes).replace(/\u0000/g, '\\0'),
  })
  if (error.code !== undefined) {
    const code = ctx.newString(error.code)
    ctx.setProp(handle, 'code', code)
    code.dispose()
  }
  return handle
}
