/**
 * Response bodies read for a program, within one budget per run (`fetch.limits.maxResponseBytes`)
 * that every request of the run draws from, however many run at once. Bytes are reserved before
 * they are read: a body is read through a BYOB reader into buffers no larger than the reservation,
 * so the host never pulls more than the budget for a run; the reader is cancelled when the budget is
 * spent. Bytes read count whether or not their response was then refused: the budget is what the
 * host reads for the run, not only what the program keeps.
 */

/** How much one read reserves at most. */
const CHUNK = 64 * 1024

/** One run's response budget. */
export class ResponseBudget {
  /** Not reserved, not read. */
  private left: number
  /** Reserved by bodies being read and not read yet: what they do not read comes back. */
  private held = 0
  private waiting: Array<() => void> = []

  constructor(readonly max: number) {
    this.left = max
  }

  /** Reserves all of `n` bytes, waiting while reads in flight may give back enough; false if they cannot. */
  async reserveAll(n: number, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted || this.left + this.held < n) return false
      if (this.left >= n) {
        this.take(n)
        return true
      }
      await this.wait(signal)
    }
  }

  /**
   * Reserves up to `want` bytes. With `wait`, waits while nothing is left but reads in flight hold
   * some (only a caller that holds nothing may wait: it would wait for itself); 0 once spent.
   */
  async reserveUpTo(want: number, signal: AbortSignal, wait = true): Promise<number> {
    for (;;) {
      if (signal.aborted) return 0
      if (this.left > 0) return this.take(Math.min(want, this.left))
      if (this.held === 0 || !wait) return 0
      await this.wait(signal)
    }
  }

  /** `n` reserved bytes were read: spent for good. */
  use(n: number): void {
    this.held -= n
    this.wakeAll()
  }

  /** `n` reserved bytes will not be read: back to the budget. */
  release(n: number): void {
    this.held -= n
    this.left += n
    this.wakeAll()
  }

  private take(n: number): number {
    this.left -= n
    this.held += n
    return n
  }

  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake()
  }

  private async wait(signal: AbortSignal): Promise<void> {
    let wake = () => {}
    await new Promise<void>(resolve => {
      wake = resolve
      this.waiting.push(resolve)
      signal.addEventListener('abort', wake, { once: true })
    })
    signal.removeEventListener('abort', wake)
  }
}

/** An error the program sees as `FetchRefused`. */
export function refused(message: string): Error {
  const error = new Error(message)
  error.name = 'FetchRefused'
  return error
}

function tooLarge(budget: ResponseBudget): Error {
  return refused(`the response is larger than this run may still read (fetch.limits.maxResponseBytes: ${budget.max} bytes per run)`)
}

/** The length a response declares, if it is the length of the body as read (not compressed). */
function declaredLength(response: Response): number | undefined {
  if (response.headers.has('content-encoding')) return undefined
  const length = Number(response.headers.get('content-length') ?? NaN)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

/**
 * The body as text, read within `budget`; refused (and the reader cancelled) past it. A declared
 * length is reserved whole before a byte is read (so of concurrent requests that cannot all fit,
 * some complete and the rest are refused unread); a body without one reserves as it goes.
 */
export async function readBody(response: Response, budget: ResponseBudget, signal: AbortSignal): Promise<string> {
  const body = response.body
  if (!body) return ''
  const length = declaredLength(response)
  let reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>
  let byob = true
  try {
    reader = body.getReader({ mode: 'byob' })
  } catch {
    // A host fetch whose bodies are not byte streams: chunks are counted as they come.
    reader = body.getReader()
    byob = false
  }
  const stopped = () => (signal.aborted ? refused('the run ended while the response was read') : tooLarge(budget))
  const decoder = new TextDecoder()
  let text = ''
  /** Reserved for this body and not read yet (given back at the end). */
  let outstanding = 0
  let bytes = 0
  try {
    if (length !== undefined) {
      if (!(await budget.reserveAll(length, signal))) throw stopped()
      outstanding = length
    }
    for (;;) {
      if (signal.aborted) throw stopped()
      if (length !== undefined && bytes === length) break // complete (more from a server that lied is not read)
      if (byob && outstanding === 0) {
        outstanding = await budget.reserveUpTo(CHUNK, signal)
        if (outstanding === 0) throw stopped()
      }
      const { done, value } = byob
        ? await (reader as ReadableStreamBYOBReader).read(new Uint8Array(Math.min(CHUNK, outstanding)))
        : await (reader as ReadableStreamDefaultReader<Uint8Array>).read()
      if (done) return text + decoder.decode()
      // Only a default reader can bring more than was reserved: reserve the rest now (without
      // waiting: this body may hold what others wait for), or refuse.
      while (value.byteLength > outstanding) {
        const more = length === undefined ? await budget.reserveUpTo(value.byteLength - outstanding, signal, false) : 0
        if (more === 0) throw stopped()
        outstanding += more
      }
      budget.use(value.byteLength)
      outstanding -= value.byteLength
      bytes += value.byteLength
      text += decoder.decode(value, { stream: true })
    }
  } catch (error) {
    await reader.cancel().catch(() => {})
    throw error
  } finally {
    budget.release(outstanding)
  }
  await reader.cancel().catch(() => {})
  return text + decoder.decode()
}
