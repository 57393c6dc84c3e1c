import { spawn } from 'node:child_process'

/** Process groups still running, stopped by stopAllNpm (afterAll) if a test ends before its script. */
const running = new Set<number>()

/** Stops every script runNpm started that is still running. */
export function stopAllNpm(): void {
  for (const pid of running) kill(pid)
  running.clear()
}

function kill(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs `npm <args>` in `cwd` as a person would (npm puts node_modules/.bin, the pinned Node, first on
 * PATH), in its own process group so that a script that does not stop by itself (a server) is
 * stopped with everything it started: after `stopWhen` matches its output, or after `timeoutMs`
 * (then code is null: a script that should have refused to start did not).
 */
export function runNpm(
  cwd: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number; stopWhen?: RegExp } = {},
): Promise<Finished> {
  const env = { ...process.env, ...options.env }
  for (const key of Object.keys(env)) if (/^(npm_|VITEST|NODE_OPTIONS$)/i.test(key)) delete env[key]
  Object.assign(env, options.env)
  const child = spawn('npm', args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  running.add(child.pid!)
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    running.delete(child.pid!)
    kill(child.pid!)
  }
  const check = () => {
    if (options.stopWhen?.test(stdout + stderr)) stop()
  }
  child.stdout.on('data', (d: Buffer) => ((stdout += d), check()))
  child.stderr.on('data', (d: Buffer) => ((stderr += d), check()))
  const timer = setTimeout(stop, options.timeoutMs ?? 60_000)
  return new Promise(resolve =>
    child.once('close', code => {
      clearTimeout(timer)
      stop()
      resolve({ code, stdout, stderr })
    }),
  )
}
