import type { Locator, Page } from 'playwright'
import { expect, it } from 'vitest'
import { DEMO_PROFILES } from '../../demo/src/api/settings.js'
import { PROPOSE_DRAFT, PROPOSE_NOTES } from '../../fixtures/script-appendix/propose-notes.js'
import { openDemo, stage } from './browser.js'
import { putFile, readFile } from './node-host.js'
import * as ui from './ui.js'
import { useDemoRig } from './demo-rig.js'

// Propose → review → apply in the demo, against the Node host (npm run serve): an execution of the
// `propose-notes` profile (writes: 'propose') ends on an approval card that is the diff of its
// branch; Deny leaves the workspace as it was; a second run's Approve lands it (the tree shows it,
// the execution's Changes list it); a third run's Approve after a person edited a proposed file
// writes nothing and the card lists the conflict.
const rig = useDemoRig()
const FLOW = 'flow-propose'
const DRAFT = '# Draft\nstatus: draft\nowner: ana\n'

const put = (id: string, path: string, text: string) => putFile(rig.host, id, path, text)
const read = (id: string, path: string) => readFile(rig.host, id, path)

/** The proposal card of execution `executionId`, once the execution has ended on it. */
async function proposalCard(page: Page, executionId: string): Promise<Locator> {
  const card = page.locator(`[data-testid="pending-item"][data-pending-id="${executionId}-proposal"]`)
  await card.locator('[data-testid="proposal-review"]').waitFor()
  expect(await ui.waitStatus(page, 'waiting_approval')).toBe('waiting_approval')
  return card
}

/** A diff's files but the run_js programs the execution saved (/work/.run_js/, proposed and landed with the rest). */
const OWN_FILES = '[data-testid="change-entry"]:not([data-path^="/work/.run_js/"])'

/** The review's files as `status path +added −removed`, sorted (the saved programs left out). */
async function reviewed(card: Locator): Promise<string[]> {
  const entries = card.locator(OWN_FILES)
  const text = await entries.evaluateAll(els =>
    els.map(
      e => `${e.getAttribute('data-status')} ${e.getAttribute('data-path')} ${e.querySelector('summary .hint')?.textContent?.trim()}`,
    ),
  )
  return text.sort()
}

it('the approval is the diff: Deny discards, Approve lands one commit, an edit since is a conflict listed on the card', async () => {
  const { page, errors } = await openDemo(rig.browser, rig.demo.url)
  await ui.connect(page, { remote: { baseUrl: rig.demo.url.replace(/\/$/, ''), token: rig.host.token } })
  const id = await ui.createSession(page, { profile: DEMO_PROFILES.proposeNotes, title: 'Proposals' })
  await put(id, PROPOSE_DRAFT, DRAFT)
  await ui.waitTree(page, [PROPOSE_DRAFT])

  // The execution ends; nothing has landed; the card shows what it would change, line by line.
  await ui.sendMessage(page, 'Review the draft.')
  const first = await proposalCard(page, 'e0001')
  expect(await reviewed(first)).toEqual([`added ${PROPOSE_NOTES} +2 −0`, `changed ${PROPOSE_DRAFT} +1 −1`])
  expect(await first.locator('[data-testid="change-entry"][data-path="/outputs"]').count()).toBe(0) // files, not their folders
  expect(await first.textContent()).toContain('changes to 3 file(s)') // the two and the saved program
  const draftEntry = first.locator(`[data-testid="change-entry"][data-path="${PROPOSE_DRAFT}"]`)
  await draftEntry.locator('summary').click()
  const lines = (kind: string) =>
    draftEntry.locator(`[data-testid="diff"] .${kind}`).evaluateAll(els => els.map(e => e.textContent?.trim()))
  expect(await lines('del')).toEqual(['-status: draft'])
  expect(await lines('add')).toEqual(['+status: reviewed (pass 1)'])
  expect(await first.getByTestId('approve-always').count()).toBe(0)
  expect(await ui.treePaths(page)).not.toContain(PROPOSE_NOTES)
  expect(await read(id, PROPOSE_DRAFT)).toBe(DRAFT)
  await stage(page, FLOW, '01-review')

  // Deny: the branch is discarded, the workspace is as it was.
  await ui.approve(page, 'deny')
  await ui.waitStatus(page, 'idle')
  expect(await read(id, PROPOSE_DRAFT)).toBe(DRAFT)
  expect(await read(id, PROPOSE_NOTES)).toBeUndefined()
  expect(await ui.treePaths(page)).not.toContain(PROPOSE_NOTES)

  // A second run, approved: it lands; the tree shows it from the change events; its Changes list both files.
  await ui.sendMessage(page, 'Review the draft again.')
  await proposalCard(page, 'e0002')
  await ui.approve(page, 'once')
  await ui.waitStatus(page, 'idle')
  await ui.waitTree(page, [PROPOSE_NOTES, PROPOSE_DRAFT])
  expect(await read(id, PROPOSE_DRAFT)).toBe('# Draft\nstatus: reviewed (pass 1)\nowner: ana\n')
  const end = page.locator('[data-testid="timeline-item"][data-type="execution-end"]').nth(1)
  await end.getByTestId('show-changes').click()
  await end.locator(`[data-testid="change-entry"][data-path="${PROPOSE_NOTES}"]`).waitFor()
  expect(await end.locator(OWN_FILES).evaluateAll(els => els.map(e => e.getAttribute('data-path')).sort())).toEqual(
    [PROPOSE_NOTES, PROPOSE_DRAFT].sort(),
  )
  await end.scrollIntoViewIfNeeded()
  await stage(page, FLOW, '02-landed')

  // A third run; a person edits a proposed file before the approval: nothing is written, the card lists it.
  await ui.sendMessage(page, 'And once more.')
  const third = await proposalCard(page, 'e0003')
  await put(id, PROPOSE_NOTES, '# Review notes\n- edited by a person\n')
  await third.getByTestId('approve-once').click()
  await third.getByTestId('proposal-conflicts').waitFor()
  expect(await third.getAttribute('data-outcome')).toBe('conflicts')
  expect(await third.locator('h3').textContent()).toBe('Not applied: apply_changes')
  expect(await third.getByTestId('approve-once').count()).toBe(0)
  expect(await third.getByTestId('proposal-conflict').evaluateAll(els => els.map(e => e.getAttribute('data-path')))).toEqual([
    PROPOSE_NOTES,
  ])
  expect(await read(id, PROPOSE_DRAFT)).toBe('# Draft\nstatus: reviewed (pass 1)\nowner: ana\n')
  expect(await read(id, PROPOSE_NOTES)).toBe('# Review notes\n- edited by a person\n')
  await stage(page, FLOW, '03-conflict')
  await third.getByTestId('dismiss-proposal').click()
  await third.waitFor({ state: 'detached' })
  // The refused approval's 409 is the browser's to log; nothing else may be.
  expect(errors.filter(e => !/Failed to load resource: the server responded with a status of 409/.test(e))).toEqual([])
})
