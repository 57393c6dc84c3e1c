import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs } from '../../src/index.js'
import { describeRunJsHostile } from '../hostile/run-js.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('chromium, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsHostile('chromium, memory store', async () => ({ store: memoryStore() }))

describe('chromium: loading the TypeScript loader is not the program’s time', () => {
  it('a TypeScript program with a 1 s limit runs although its loader takes longer than that to load', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'ts-load', scope: 's' })
    // A fresh loader (nothing cached), slower than the limit even on a quiet machine.
    const typescript = async () => {
      await new Promise(r => setTimeout(r, 1500))
      return import('ts-blank-space')
    }
    const r = await createRunJs({ vfs, typescript, limits: { timeMs: 1000 } }).run(`const n: number = 41; return n + 1`)
    expect(r).toMatchObject({ success: true, result: 42 })
  }, 60_000)
})
