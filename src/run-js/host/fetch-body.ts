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
  /** Reserved by reads in flight: some of it may come back. */
  private held = 0
  private waiting: Array<() => void> = []

  constructor(readonly max: number) {
    this.left = max
  }

  /**
   * Reserves up to `want` bytes. While nothing is left but reads in flight hold some, waits for them
   * (a short read gives back what it did not use); 0 once the budget is spent for good.
   */
  async reserve(want: number, signal: AbortSignal): Promise<number> {
    for (;;) {
      if (this.left > 0) {
        const got = Math.min(want, this.left)
        this.left -= got
        this.held += got
        return got
      }
      if (this.held === 0 || signal.aborted) return 0
      let wake = () => {}
      await new Promise<void>(resolve => {
        wake = resolve
        this.waiting.push(resolve)
        signal.addEventListener('abort', wake, { once: true })
      })
      signal.removeEventListener('abort', wake)
    }
  }

  /** Settles a reservation of `reserved` bytes of which `used` were read. */
  settle(reserved: number, used: number): void {
    this.held -= reserved
    this.left += reserved - used
    for (const wake of this.waiting.splice(0)) wake()
  }

  /** Bytes that may still come: what is left and what reads in flight may give back. */
  get possible(): number {
    return this.left + this.held
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

/** The body as text, read within `budget`; refused (and the reader cancelled) past it. */
export async function readBody(response: Response, budget: ResponseBudget, signal: AbortSignal): Promise<string> {
  const body = response.body
  if (!body) return ''
  // A declared length (not compressed: decoding changes the size) larger than the budget can ever
  // give is refused before a byte is read; a body that reaches it is complete.
  const declared = response.headers.has('content-encoding') ? NaN : Number(response.headers.get('content-length') ?? NaN)
  const length = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined
  if (length !== undefined && length > budget.possible) {
    await body.cancel().catch(() => {})
    throw tooLarge(budget)
  }
  let byob: ReadableStreamBYOBReader | undefined
  try {
    byob = body.getReader({ mode: 'byob' })
  } catch {
    // A host fetch whose bodies are not byte streams: chunks are counted as they come.
    return readChunks(body.getReader(), budget, signal)
  }
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for (;;) {
    if (length !== undefined && bytes === length) {
      await byob.cancel().catch(() => {})
      return text + decoder.decode()
    }
    const want = length === undefined ? CHUNK : Math.min(CHUNK, length - bytes)
    const reserved = await budget.reserve(want, signal)
    if (signal.aborted) {
      budget.settle(reserved, 0)
      await byob.cancel().catch(() => {})
      throw refused('the run ended while the response was read')
    }
    if (reserved === 0) {
      await byob.cancel().catch(() => {})
      throw tooLarge(budget)
    }
    let used = 0
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await byob.read(new Uint8Array(reserved))
      used = chunk.value?.byteLength ?? 0
    } finally {
      budget.settle(reserved, used)
    }
    if (chunk.done) return text + decoder.decode()
    bytes += used
    text += decoder.decode(chunk.value, { stream: true })
  }
}

async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>, budget: ResponseBudget, signal: AbortSignal): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    if (signal.aborted) throw (await reader.cancel().catch(() => {}), refused('the run ended while the response was read'))
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    const reserved = await budget.reserve(value.byteLength, signal)
    budget.settle(reserved, reserved)
    if (reserved < value.byteLength) {
      await reader.cancel().catch(() => {})
      throw tooLarge(budget)
    }
    text += decoder.decode(value, { stream: true })
  }
}
