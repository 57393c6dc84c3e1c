import type { Page } from 'playwright'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { openDemo, stage } from './browser.js'
import { writeFolder } from './inputs.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// Bad input through the demo's upload, in both modes: a file that is not UTF-8, a 20 MB file
// (over the host's 20 MiB upload limit), and folders with hostile names (a bidirectional control,
// a control character, `..`). Each ends in a clear message in the UI and nothing written: the
// file tree stays empty, and in remote mode the host's file list (GET /sessions/:id/files) too.
const rig = useDemoRig()
const MiB = 1024 * 1024

/** Files the host holds for a session (remote mode). */
async function hostFiles(id: string): Promise<string[]> {
  const res = await fetch(`${rig.host.url}/sessions/${id}/files`, { headers: { authorization: `Bearer ${rig.host.token}` } })
  expect(res.status).toBe(200)
  return ((await res.json()) as Array<{ path: string }>).map(f => f.path)
}

/** Latin-1 text: "Café" with é as the single byte 0xE9, which is not UTF-8. */
const latin1 = Uint8Array.from([...'INT. CAF', 0xe9, ...' - DAY\n'].map(c => (typeof c === 'number' ? c : c.charCodeAt(0))))

const modes = [
  { name: 'in this tab', flow: 'bad-input-tab', remote: false },
  { name: 'remote (Node host)', flow: 'bad-input-remote', remote: true },
] as const

describe.each(modes)('bad input, $name', ({ flow, remote }) => {
  let page: Page
  let errors: string[]
  let id: string

  /** Nothing was written: the tree (after a refresh) and, remotely, the host list no file. */
  async function nothingWritten(): Promise<void> {
    await page.getByTestId('refresh-files').click()
    await page.getByTestId('file-tree').filter({ hasText: 'The workspace is empty' }).waitFor()
    expect(await ui.treePaths(page)).toEqual([])
    if (remote) expect((await hostFiles(id)).filter(p => !p.startsWith('/state/'))).toEqual([])
  }

  beforeAll(async () => {
    ;({ page, errors } = await openDemo(rig.browser, remote ? rig.demo.url : inject('demoUrl')))
    await ui.connect(page, remote ? { remote: { baseUrl: rig.demo.url.replace(/\/$/, ''), token: rig.host.token } } : {})
    id = await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'Bad input' })
    await nothingWritten()
  })
  afterAll(() => page?.context().close())

  it('a file that is not UTF-8: the message names it, and the good file beside it is not written either', async () => {
    const folder = writeFolder('season', { 'characters.md': '# Characters\n', 'episodes/episode-01.fountain': latin1 })
    try {
      const outcome = await ui.uploadFolder(page, folder.dir)
      expect(outcome.ok).toBe(false)
      expect(outcome.text).toMatch(/^Nothing was uploaded\./)
      expect(outcome.text).toContain('episodes/episode-01.fountain is not UTF-8')
      await stage(page, flow, '01-not-utf8')
      await nothingWritten()
    } finally {
      folder.remove()
    }
  })

  it('a 20 MB file: over the upload limit, said so, nothing written', async () => {
    const outcome = await ui.uploadFiles(page, [{ name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(20 * MiB + 1, 'a') }])
    expect(outcome.ok).toBe(false)
    expect(outcome.text).toMatch(/^Nothing was uploaded\./)
    expect(outcome.text).toMatch(/limited to 20971520 bytes|too large|over quota/i)
    expect(outcome.text).toMatch(/smaller/)
    await stage(page, flow, '02-too-large')
    await nothingWritten()
  })

  for (const [label, name, says] of [
    ['a bidirectional control (U+202E)', 'season\u202Eeno.md', /<U\+202E>.*bidirectional/],
    ['a control character (U+0007)', 'season\u0007bell', /<U\+0007>.*control character/],
  ] as const) {
    it(`a folder whose name holds ${label}: refused by name, nothing written`, async () => {
      const folder = writeFolder('picked', { [`${name}/characters.md`]: '# Characters\n', 'notes.md': 'fine\n' })
      try {
        const outcome = await ui.uploadFolder(page, folder.dir)
        expect(outcome.ok).toBe(false)
        expect(outcome.text).toMatch(/^Nothing was uploaded\./)
        expect(outcome.text).toMatch(says)
        await nothingWritten()
      } finally {
        folder.remove()
      }
    })
  }

  it('a dropped file named `../escape.md`: refused, nothing written', async () => {
    const transfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer()
      dt.items.add(new File(['# out\n'], '../escape.md', { type: 'text/markdown' }))
      dt.items.add(new File(['fine\n'], 'notes.md', { type: 'text/markdown' }))
      return dt
    })
    await ui.watchUploadMessage(page)
    await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: transfer })
    const outcome = await ui.uploadOutcome(page)
    expect(outcome.ok).toBe(false)
    expect(outcome.text).toMatch(/^Nothing was uploaded\./)
    expect(outcome.text).toMatch(/'\.\.' is not allowed/)
    await stage(page, flow, '03-hostile-name')
    await nothingWritten()
    // The browser logs the refused 20 MB request itself; nothing else may go wrong.
    expect(errors.filter(e => !/Failed to load resource: the server responded with a status of 413/.test(e))).toEqual([])
  })
})
