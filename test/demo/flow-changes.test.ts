import { afterAll, beforeAll, expect, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { openDemo, stage } from './browser.js'
import { writeEpisodes, type InputFolder } from './inputs.js'
import { putFile } from './node-host.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// The workspace's history in the demo, against the Node host (npm run serve): the file tree follows
// files-changed events (a write by another client shows without a refresh), an execution's Changes
// with text diffs, Undo refused with its conflicts after a later edit, "Fork from here" opening the
// fork, and Undo in the fork putting the execution's files back (a preview open on a file it removes says so).
const rig = useDemoRig()
const FLOW = 'flow-changes'
let input: InputFolder

beforeAll(async () => {
  input = writeEpisodes({ count: 6, name: 'season-changes' })
}, 300_000)
afterAll(async () => {
  input?.remove()
})

/** A write by another client of the API. */
const put = (id: string, path: string, text: string) => putFile(rig.host, id, path, text)

it('Changes, Undo with conflicts, fork from here, Undo in the fork; the tree stays live from change events', async () => {
  const { page, errors } = await openDemo(rig.browser, rig.demo.url)
  await ui.connect(page, { remote: { baseUrl: rig.demo.url.replace(/\/$/, ''), token: rig.host.token } })
  const id = await ui.createSession(page, { profile: DEMO_PROFILES.appendix, title: 'Changes' })
  expect((await ui.uploadFolder(page, input.dir)).ok).toBe(true)
  await ui.sendMessage(page, 'Write the production appendix for this season.')
  await page.locator('[data-testid="timeline-item"][data-type="result-accepted"]').waitFor({ timeout: 120_000 })
  expect(await ui.waitStatus(page, 'idle')).toBe('idle')
  await ui.waitTree(page, ['/outputs/assets.json', '/outputs/appendix.md'])
  // Another client writes (into /context, a folder the execution did not create: undoing the creation
  // of a folder that now holds someone else's file is a conflict of its own): the tree shows it from
  // the event, nobody pressed refresh.
  await put(id, '/context/from-another-client.md', 'hello')
  await ui.waitTree(page, ['/context/from-another-client.md'])

  const end = page.locator('[data-testid="timeline-item"][data-type="execution-end"]')
  await end.getByTestId('show-changes').click()
  const entry = end.locator('[data-testid="change-entry"][data-path="/outputs/appendix.md"]')
  await entry.waitFor()
  expect(await entry.getAttribute('data-status')).toBe('added')
  expect(await end.locator('[data-testid="change-entry"][data-path^="/state/"]').count()).toBe(0)
  await entry.locator('summary').click()
  expect(await entry.locator('[data-testid="diff"] .add').count()).toBeGreaterThan(3)
  await end.scrollIntoViewIfNeeded()
  await stage(page, FLOW, '01-changes')

  // A later edit: Undo writes nothing and names the file.
  await put(id, '/outputs/appendix.md', '# edited by a person\n')
  await end.getByTestId('undo-execution').click()
  await end.getByTestId('undo-conflicts').waitFor()
  expect(await end.getByTestId('undo-conflict').evaluateAll(els => els.map(e => e.getAttribute('data-path')))).toEqual([
    '/outputs/appendix.md',
  ])
  expect(await ui.treePaths(page)).toContain('/outputs/assets.json')
  await stage(page, FLOW, '02-undo-conflict')

  // Fork at the execution's end (before the edit): the fork opens; Undo there puts its files back.
  await end.getByTestId('fork-here').click()
  const fork = page.locator('[data-testid="session-view"]:not([data-session-id="' + id + '"])')
  await fork.waitFor()
  await fork.locator('[data-testid="timeline-item"][data-type="session-forked"]').waitFor()
  await ui.waitTree(page, ['/outputs/appendix.md'])
  expect(await ui.treePaths(page)).not.toContain('/context/from-another-client.md')
  // A file open in the preview that the Undo removes: the preview says it is gone (issue 28: it kept showing it).
  await ui.openFile(page, '/outputs/assets.json')
  const forkEnd = fork.locator('[data-testid="timeline-item"][data-type="execution-end"]')
  await forkEnd.getByTestId('undo-execution').click()
  await forkEnd.getByTestId('undo-result').waitFor()
  await page.waitForFunction(() => !document.querySelector('[data-testid="file-item"][data-path="/outputs/assets.json"]'))
  const preview = page.locator('[data-testid="file-preview"][data-path="/outputs/assets.json"]')
  await preview.getByTestId('preview-deleted').waitFor()
  expect(await preview.getByTestId('preview-download').count()).toBe(0)
  expect(await preview.getByTestId('preview-json').count()).toBe(0)
  await stage(page, FLOW, '03-fork-undone')
  // The refused Undo's 409 is the browser's to log; nothing else may be.
  expect(errors.filter(e => !/Failed to load resource: the server responded with a status of 409/.test(e))).toEqual([])
})
