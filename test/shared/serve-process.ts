import { spawn } from 'node:child_process'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

/**
 * `npm run serve` with `env` (and `args`), from the sources: `ready` resolves once it printed its URL
 * and dev token, or to undefined when it exits first; `log()` is everything it printed so far.
 */
export function serveProcess(env: NodeJS.ProcessEnv, args: string[] = []) {
  const proc = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  proc.stdout!.on('data', d => (log += d))
  proc.stderr!.on('data', d => (log += d))
  const exited = new Promise<number | null>(r => proc.once('exit', r))
  const ready = new Promise<{ url: string; token: string } | undefined>(resolve => {
    const timer = setInterval(() => {
      const u = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(log)
      const t = /dev token \(owner "dev", 24 h\): (\S+)/.exec(log)
      if (u && t) {
        clearInterval(timer)
        resolve({ url: u[1], token: t[1] })
      }
    }, 50)
    void exited.then(() => (clearInterval(timer), resolve(undefined)))
  })
  return { proc, ready, exited, log: () => log }
}
