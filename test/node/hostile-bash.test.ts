// Hostile command lines against agent-vfs/bash: each is bounded (ends with a non-zero exit code and
// a message, within the default limits), writes nothing, and the owner's quotas hold.
import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, type VfsQuota } from '../../src/index.js'
import { createBash, type BashLimits } from '../../src/bash/index.js'

let n = 0
async function shell(limits?: BashLimits, quota?: VfsQuota) {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'hostile', scope: `s${++n}`, quota })
  await vfs.writeFile('/work/keep.txt', 'old\n')
  return { vfs, bash: createBash({ vfs, limits }) }
}

/** Runs a hostile line: it must fail, in bounded time, leaving the workspace as it was. */
async function refused(script: string, limits?: BashLimits) {
  const { vfs, bash } = await shell(limits)
  const version = (await vfs.stat('/work/keep.txt')).version
  const started = Date.now()
  const r = await bash.exec(`echo new > /work/keep.txt; echo x > /work/made.txt; ${script}`)
  expect(r.exitCode, r.stderr).not.toBe(0)
  expect(Date.now() - started).toBeLessThan(30_000)
  expect(await vfs.readFile('/work/keep.txt', 'utf8')).toBe('old\n')
  expect((await vfs.stat('/work/keep.txt')).version).toBe(version)
  expect(await vfs.exists('/work/made.txt')).toBe(false)
  return r
}

describe('hostile bash command lines', () => {
  it('a fork bomb ends at the call depth', async () => {
    const r = await refused(':(){ :|:& };:')
    expect(r.stderr).toMatch(/recursion depth|too many/)
  })

  it('deep recursion ends at the call depth', async () => {
    expect((await refused('f(){ f; }; f')).stderr).toMatch(/maximum recursion depth \(100\)/)
  })

  it('an endless loop ends at the loop limit with the defaults', async () => {
    expect((await refused('while true; do :; done')).stderr).toMatch(/too many (iterations|commands)/)
  })

  it('many commands end at the command count', async () => {
    const r = await refused('for i in $(seq 1 5000); do true; true; true; done', { maxLoopIterations: 1e6, maxCommands: 2000 })
    expect(r.stderr).toMatch(/too many commands|command count/)
  })

  it('huge output is cut at maxOutputBytes', async () => {
    const r = await refused('seq 1 10000000', { maxOutputBytes: 100_000, maxLoopIterations: 1e8 })
    expect(r.stdout.length + r.stderr.length).toBeLessThanOrEqual(100_000 + 1000)
    expect(r.stderr).toMatch(/output size limit/)
  })

  it('a brace-expansion bomb is bounded', async () => {
    await refused('echo {1..100000}{1..100000} > /dev/null')
  })

  it('many files end at maxStagedPaths', async () => {
    const r = await refused('for i in $(seq 1 5000); do echo $i > /work/f$i; done', { maxStagedPaths: 1000 })
    expect(r.stderr).toMatch(/at most 1000 paths/)
  })

  it('a huge file ends at maxStagedBytes', async () => {
    const r = await refused('seq 1 1000000 > /work/big.txt', { maxStagedBytes: 1_000_000, maxOutputBytes: 1_000_000 })
    expect(r.stderr).toMatch(/at most 1000000 bytes|limit/)
  })

  it("the owner's byte quota holds: a line past it writes nothing, files it changed first included", async () => {
    const { vfs, bash } = await shell(undefined, { maxBytes: 2000 })
    const version = (await vfs.stat('/work/keep.txt')).version
    const usage = vfs.usage()
    const r = await bash.exec('echo changed > /work/keep.txt; mkdir /work/d; echo a > /work/a.txt; seq 1 1000 > /work/z-big.txt')
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr).toMatch(/nothing was written: EQUOTA/)
    await vfs.flush()
    expect(await vfs.readFile('/work/keep.txt', 'utf8')).toBe('old\n')
    expect(await vfs.exists('/work/a.txt')).toBe(false)
    expect(await vfs.exists('/work/d')).toBe(false)
    expect(vfs.usage()).toEqual(usage)
    expect((await vfs.stat('/work/keep.txt')).version).toBe(version)
  })

  it("the owner's byte quota refusing a replaced file takes back the new files landed before it", async () => {
    const { vfs, bash } = await shell(undefined, { maxBytes: 2000 })
    const usage = vfs.usage()
    const r = await bash.exec('echo a > /work/new.txt; seq 1 1000 > /work/keep.txt')
    expect(r.stderr).toMatch(/nothing was written: EQUOTA/)
    await vfs.flush()
    expect(await vfs.exists('/work/new.txt')).toBe(false)
    expect(await vfs.readFile('/work/keep.txt', 'utf8')).toBe('old\n')
    expect(vfs.usage()).toEqual(usage)
  })

  it("the owner's file count holds", async () => {
    const { vfs, bash } = await shell(undefined, { maxFiles: 3 })
    const r = await bash.exec('for i in 1 2 3 4 5; do echo $i > /work/f$i; done')
    expect(r.exitCode).not.toBe(0)
    await vfs.flush()
    expect(await vfs.readdir('/work')).toEqual(['keep.txt'])
  })

  it('no network: curl does not exist without fetch rules', async () => {
    const { bash } = await shell()
    const r = await bash.exec('curl https://example.com/')
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr).toMatch(/command not found|not available/)
  })
})
