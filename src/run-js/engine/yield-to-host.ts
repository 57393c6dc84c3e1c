// A program that keeps its jobs busy must still let the host answer requests between pumps: the
// pump loop gives the event loop a turn through a macrotask, the cheapest each runtime has.

/** Runs `fn` in a macrotask, as soon as the host allows (setImmediate in Node, a message port elsewhere). */
export const yieldToHost: (fn: () => void) => void = (() => {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown }
  if (typeof g.setImmediate === 'function') return fn => void g.setImmediate!(fn)
  if (typeof MessageChannel === 'function') {
    const queue: Array<() => void> = []
    let channel: MessageChannel | undefined
    return fn => {
      if (!channel) {
        channel = new MessageChannel()
        channel.port1.onmessage = () => queue.shift()?.()
      }
      queue.push(fn)
      channel.port2.postMessage(0)
    }
  }
  return fn => void setTimeout(fn, 0)
})()
