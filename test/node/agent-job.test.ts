import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, runJob, type JobIo } from '../../fixtures/script-appendix/job.js'

const dirs: string[] = []
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'agent-job-'))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function io(): JobIo & { out: string[]; err: string[] } {
  const out: string[] = []
  const err: string[] = []
  return { out, err, log: l => out.push(l), error: l => err.push(l) }
}

function files(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map(n => [n, readFileSync(join(dir, n), 'utf8')]),
  )
}

describe('the example main job', () => {
  it('runs the task and the follow-up on a memory store and copies /outputs', async () => {
    const out = tmp()
    const o = io()
    expect(await runJob(['--store', 'memory', '--out', out], o)).toBe(EXIT.ok)
    expect(Object.keys(files(out))).toEqual(['appendix.md', 'assets.json', 'characters-by-location.md', 'coverage.json', 'validation.json'])
    expect(JSON.parse(files(out)['coverage.json']).missing).toEqual([])
    const log = o.out.join('\n')
    expect(log).toMatch(/✗ result rejected:\n\s+- episode 60 /)
    expect(log).toMatch(/✓ checkpoint r7/)
    expect(log).toMatch(/■ e0002 completed/)
  })

  it('stops after --interrupt-after N tool calls and resumes on the same PGlite session with identical outputs', async () => {
    const reference = tmp()
    await runJob(['--store', 'memory', '--out', reference], io())
    const data = tmp()
    const out = tmp()
    const first = io()
    expect(await runJob(['--store', `pglite:${data}`, '--out', out, '--interrupt-after', '6'], first)).toBe(EXIT.stopped)
    expect(first.out.join('\n')).toMatch(/stopping after 6 tool calls[\s\S]*run again with --session script-appendix/)
    const second = io()
    expect(await runJob(['--store', `pglite:${data}`, '--out', out], second)).toBe(EXIT.ok)
    expect(second.out.join('\n')).toMatch(/▶ execution e0001 \(resumed\)/)
    expect(files(out)).toEqual(files(reference))
    const third = io()
    expect(await runJob(['--store', `pglite:${data}`, '--out', out], third)).toBe(EXIT.ok)
    expect(third.out.filter(l => l.includes('already completed'))).toHaveLength(2)
  })

  it('reads an input folder in the format and refuses bad ones with a clear message', async () => {
    const input = tmp()
    writeFileSync(join(input, 'characters.md'), '# Characters\n\n- MARA VOSS: MARA\n')
    mkdirSync(join(input, 'eps'))
    writeFileSync(
      join(input, 'eps', 'a.fountain'),
      '# Episode 1: One\n\nINT. LIGHTHOUSE - NIGHT\n\nMARA holds the LANTERN.\n\nMARA\nHello.\n',
    )
    writeFileSync(join(input, 'eps', 'b.fountain'), '# Episode 2: Two\n\nEXT. HARBOUR - DAY\n\nMARA VOSS\nBye.\n')
    const out = tmp()
    expect(await runJob(['--store', 'memory', '--input', input, '--out', out], io())).toBe(EXIT.ok)
    expect(JSON.parse(files(out)['assets.json'])).toEqual({
      characters: [{ name: 'MARA VOSS', aliases: ['MARA'], episodes: [1, 2], lines: 2 }],
      locations: [
        { name: 'HARBOUR', episodes: [2] },
        { name: 'LIGHTHOUSE', episodes: [1] },
      ],
      props: [{ name: 'LANTERN', episodes: [1] }],
    })
    writeFileSync(join(input, 'eps', 'c.fountain'), 'no heading\n')
    const bad = io()
    expect(await runJob(['--store', 'memory', '--input', input], bad)).toBe(EXIT.usage)
    expect(bad.err[0]).toMatch(/c\.fountain does not start with "# Episode N: Title"/)
    const none = io()
    expect(await runJob(['--store', 'memory', '--input', join(input, 'missing')], none)).toBe(EXIT.usage)
    expect(none.err[0]).toMatch(/is not a folder/)
  })

  it('bad options get a message, the usage and exit code 2', async () => {
    for (const [args, message] of [
      [['--store', 'sqlite:x'], /--store must be memory, pglite:DIR or postgres:/],
      [['--interrupt-after', '0'], /--interrupt-after must be a whole number/],
      [['--approve', 'some'], /--approve must be ask or all/],
      [['--model', 'openai-compatible'], /needs --base-url/],
      [['--model', 'gpt'], /--model must be scripted or openai-compatible/],
      [['--frobnicate'], /Unknown option '--frobnicate'/],
      [['--session', '../x'], /--session must be/],
    ] as const) {
      const o = io()
      expect(await runJob([...args], o)).toBe(EXIT.usage)
      expect(o.err[0]).toMatch(message)
      expect(o.err[0]).toMatch(/usage: npm start/)
    }
  })

  it('--ask-title: the answer to the question is the appendix title', async () => {
    const out = tmp()
    const o = { ...io(), ask: async (prompt: string) => (prompt.startsWith('What title') ? 'The Lantern Years' : 'y') }
    expect(await runJob(['--store', 'memory', '--ask-title', '--out', out], o)).toBe(EXIT.ok)
    expect(o.out.join('\n')).toContain('? question: What title should the appendix have?')
    expect(files(out)['appendix.md']).toMatch(/^# The Lantern Years\n\nEpisodes: 60, covered: 60\n/)
  })

  it('--interrupt-after on a finished session says to use a new --session', async () => {
    const data = tmp()
    const store = ['--store', `pglite:${data}`, '--session', 'done-once', '--out', tmp()]
    expect(await runJob(store, io())).toBe(EXIT.ok)
    const again = io()
    expect(await runJob([...store, '--interrupt-after', '5'], again)).toBe(EXIT.ok)
    expect(again.out.join('\n')).toContain('session done-once is already complete, so there is nothing to interrupt: use a new --session')
  }, 180_000)

  it('--input: refuses a file that is not UTF-8 and names the files it skipped', async () => {
    const input = tmp()
    writeFileSync(join(input, 'characters.md'), '# Characters\n\n- MARA VOSS: MARA\n')
    writeFileSync(join(input, 'notes.txt'), 'not an episode\n')
    mkdirSync(join(input, 'eps'))
    writeFileSync(join(input, 'eps', 'a.fountain'), '# Episode 1: One\n\nINT. LIGHTHOUSE - NIGHT\n\nMARA\nHello.\n')
    writeFileSync(join(input, 'eps', 'a.md'), 'draft\n')
    const ok = io()
    expect(await runJob(['--store', 'memory', '--input', input, '--out', tmp()], ok)).toBe(EXIT.ok)
    expect(ok.out.join('\n')).toContain('--input: skipped 2 file(s) that are not characters.md or *.fountain: eps/a.md, notes.txt')
    // "Café" in Latin-1: 0xE9 alone is not UTF-8.
    writeFileSync(join(input, 'eps', 'b.fountain'), Buffer.from('# Episode 2: Caf\xe9\n\nEXT. HARBOUR - DAY\n', 'latin1'))
    const bad = io()
    expect(await runJob(['--store', 'memory', '--input', input], bad)).toBe(EXIT.usage)
    expect(bad.err.join('\n')).toMatch(/b\.fountain is not UTF-8 text\. Save it as UTF-8 and run again\./)
  })
})
