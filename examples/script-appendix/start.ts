/** Command-line entry of the example's main job: `npx tsx examples/script-appendix/start.ts [options]`. */
import { createInterface } from 'node:readline/promises'
import { runJob } from './job.js'

const tty = process.stdin.isTTY === true
const ask = tty
  ? async (prompt: string) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout })
      try {
        return await rl.question(prompt)
      } finally {
        rl.close()
      }
    }
  : undefined

process.exitCode = await runJob(process.argv.slice(2), { log: (l) => console.log(l), error: (l) => console.error(l), ...(ask ? { ask } : {}) }, process.env)
