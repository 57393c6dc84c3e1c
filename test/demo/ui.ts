import type { Locator, Page } from 'playwright'

/**
 * The demo's UI as a test drives it: by the data-testids and accessible names demo/src/ui
 * documents, waiting on what the page shows (never on time).
 */

/**
 * Connects in this tab or to a remote host (its base URL and token) through the connection
 * panel, unless the page is already connected so (a reload reconnects as last saved).
 */
export async function connect(page: Page, mode: { remote?: { baseUrl: string; token: string } } = {}): Promise<void> {
  const status = page.getByTestId('connection-status')
  await page.waitForFunction(
    () => !/connecting/.test(document.querySelector('[data-testid="connection-status"]')?.textContent ?? 'connecting'),
  )
  const want = mode.remote ? /^connected \(remote / : /^connected \(in this tab\)/
  if (want.test((await status.textContent()) ?? '')) return sessionsLoaded(page)
  const panel = page.locator('details.connection')
  if (!(await panel.evaluate(d => (d as HTMLDetailsElement).open))) await panel.locator('summary').click()
  if (mode.remote) {
    await page.getByTestId('mode-remote').check()
    await page.getByTestId('remote-base-url').fill(mode.remote.baseUrl)
    await page.getByTestId('remote-token').fill(mode.remote.token)
  } else {
    await page.getByTestId('mode-tab').check()
  }
  await page.getByTestId('connect').click()
  await page.waitForFunction(
    re => new RegExp(re).test(document.querySelector('[data-testid="connection-status"]')?.textContent ?? ''),
    want.source,
  )
  await sessionsLoaded(page)
}

/** Waits until the sessions panel shows its list or says there is none. */
export async function sessionsLoaded(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    if (document.querySelector('[data-testid="session-list"]')) return true
    const hint = document.querySelector('[aria-labelledby="sessions-heading"] p.hint')
    return /^No sessions/.test(hint?.textContent ?? '')
  })
}

/** Creates a session with `profile` and `title`, opens it, and returns its id. */
export async function createSession(page: Page, options: { profile: string; title: string }): Promise<string> {
  await page.getByTestId('new-session-profile').selectOption(options.profile)
  await page.getByTestId('new-session-title').fill(options.title)
  await page.getByTestId('new-session').click()
  const item = page.getByTestId('session-item').filter({ hasText: options.title })
  await item.waitFor()
  const id = (await item.getAttribute('data-session-id'))!
  await openSession(page, id)
  return id
}

/** Opens a session from the list and waits for its view. */
export async function openSession(page: Page, id: string): Promise<void> {
  const view = page.locator(`[data-testid="session-view"][data-session-id="${id}"]`)
  if (!(await view.isVisible()))
    await page.locator(`[data-testid="session-item"][data-session-id="${id}"] [data-testid="session-open"]`).click()
  await view.waitFor()
}

/**
 * Starts recording the upload message's changes, before an upload is triggered: the outcome is
 * the first final message after that (a message left by an earlier upload must not count).
 */
export async function watchUploadMessage(page: Page): Promise<void> {
  await page.getByTestId('upload-message').evaluate(el => {
    const w = window as unknown as { __uploadMessages: string[]; __uploadObserver?: MutationObserver }
    w.__uploadObserver?.disconnect()
    w.__uploadMessages = []
    w.__uploadObserver = new MutationObserver(() => w.__uploadMessages.push(el.textContent ?? ''))
    w.__uploadObserver.observe(el, { childList: true, subtree: true, characterData: true })
  })
}

/** The first final upload message (not "Checking…" or "Uploading…") since {@link watchUploadMessage}. */
export async function uploadOutcome(page: Page): Promise<{ ok: boolean; text: string }> {
  await page.waitForFunction(() =>
    (window as unknown as { __uploadMessages: string[] }).__uploadMessages.some(t => t !== '' && !/^(Checking|Uploading)/.test(t)),
  )
  const text = await page.evaluate(() =>
    (window as unknown as { __uploadMessages: string[] }).__uploadMessages.find(t => t !== '' && !/^(Checking|Uploading)/.test(t))!,
  )
  await page.getByTestId('upload-message').filter({ hasText: text }).waitFor()
  return { ok: (await page.getByTestId('upload-message').getAttribute('role')) !== 'alert', text }
}

/** Uploads a folder from disk through the folder picker into `dir` and returns the outcome message. */
export async function uploadFolder(page: Page, folder: string, dir = '/context'): Promise<{ ok: boolean; text: string }> {
  await page.getByTestId('upload-dir').selectOption(dir)
  await watchUploadMessage(page)
  await page.getByTestId('upload-folder').setInputFiles(folder)
  return uploadOutcome(page)
}

/** Uploads files (paths on disk, or payloads) through the file picker into `dir`. */
export async function uploadFiles(
  page: Page,
  files: Parameters<Locator['setInputFiles']>[0],
  dir = '/context',
): Promise<{ ok: boolean; text: string }> {
  await page.getByTestId('upload-dir').selectOption(dir)
  await watchUploadMessage(page)
  await page.getByTestId('upload-files').setInputFiles(files)
  return uploadOutcome(page)
}

/** Paths the file tree lists (every file, folded folders included). */
export async function treePaths(page: Page): Promise<string[]> {
  return page.getByTestId('file-item').evaluateAll(els => els.map(e => e.getAttribute('data-path') ?? ''))
}

/** Waits until the file tree lists every one of `paths` (the tree reloads after an upload or a run's writes). */
export async function waitTree(page: Page, paths: string[]): Promise<void> {
  await page.waitForFunction(want => {
    const have = new Set(Array.from(document.querySelectorAll('[data-testid="file-item"]'), e => e.getAttribute('data-path')))
    return want.every(p => have.has(p))
  }, paths)
}

/** Sends a message (the task, or a follow-up). */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-text').fill(text)
  await page.getByTestId('send-message').click()
}

/** Steers the running execution. */
export async function steer(page: Page, text: string): Promise<void> {
  await page.getByTestId('steer-text').fill(text)
  await page.getByTestId('send-steer').click()
  // Accepted: the box empties (a refused steer stays, with an error shown).
  await page.waitForFunction(() => (document.querySelector('[data-testid="steer-text"]') as HTMLInputElement | null)?.value === '')
}

/** The first unanswered prompt of `kind`, once shown. */
export async function pending(page: Page, kind: 'question' | 'approval'): Promise<Locator> {
  const item = page.locator(`[data-testid="pending-item"][data-kind="${kind}"]`).first()
  await item.waitFor()
  return item
}

/** Answers the question shown by picking `option`. */
export async function answerOption(page: Page, option: string): Promise<void> {
  const item = await pending(page, 'question')
  const id = await item.getAttribute('data-pending-id')
  await item.getByTestId('answer-option').filter({ hasText: option }).click()
  await page.locator(`[data-testid="pending-item"][data-pending-id="${id}"]`).waitFor({ state: 'detached' })
}

/** Answers the approval shown: approve once, always, or deny; returns what it asked about. */
export async function approve(page: Page, decision: 'once' | 'always' | 'deny'): Promise<string> {
  const item = await pending(page, 'approval')
  const id = await item.getAttribute('data-pending-id')
  const text = (await item.textContent()) ?? ''
  await item.getByTestId(decision === 'deny' ? 'deny' : `approve-${decision}`).click()
  await page.locator(`[data-testid="pending-item"][data-pending-id="${id}"]`).waitFor({ state: 'detached' })
  return text
}

/** The session's status as the view shows it. */
export async function status(page: Page): Promise<string> {
  return (await page.getByTestId('session-status').getAttribute('data-status')) ?? ''
}

/** Waits until the session's status is one of `statuses`. */
export async function waitStatus(page: Page, ...statuses: string[]): Promise<string> {
  await page.waitForFunction(
    want => want.includes(document.querySelector('[data-testid="session-status"]')?.getAttribute('data-status') ?? ''),
    statuses,
  )
  return status(page)
}

/** Waits until the open session's view has caught up with its event log to `seq` at least. */
export async function waitSeq(page: Page, seq: number): Promise<void> {
  await page.waitForFunction(n => Number(document.querySelector('[data-testid="session-view"]')?.getAttribute('data-last-seq')) >= n, seq)
}

/** The plan's steps as shown: id and status. */
export async function planSteps(page: Page): Promise<Array<{ id: string; status: string }>> {
  return page
    .getByTestId('plan-step')
    .evaluateAll(els => els.map(e => ({ id: e.getAttribute('data-step-id') ?? '', status: e.getAttribute('data-status') ?? '' })))
}

/** The timeline's items: seq and type, in order. */
export async function timeline(page: Page): Promise<Array<{ seq: number; type: string; tool?: string }>> {
  return page.getByTestId('timeline-item').evaluateAll(els =>
    els.map(e => ({
      seq: Number(e.getAttribute('data-seq')),
      type: e.getAttribute('data-type') ?? '',
      ...(e.getAttribute('data-tool') ? { tool: e.getAttribute('data-tool')! } : {}),
    })),
  )
}

/** Opens a workspace file in the preview (unfolding its folders) and waits for it to load. */
export async function openFile(page: Page, path: string): Promise<Locator> {
  const item = page.locator(`[data-testid="file-item"][data-path="${path}"]`)
  if (!(await item.isVisible())) {
    // Unfold each ancestor folder the tree keeps closed.
    const parts = path.split('/').filter(Boolean)
    for (let i = 1; i < parts.length; i++) {
      const dir = page.locator(`[data-testid="file-dir"][data-path="/${parts.slice(0, i).join('/')}"]`)
      if ((await dir.count()) && !(await dir.evaluate(d => (d as HTMLDetailsElement).open))) await dir.locator('summary').first().click()
    }
  }
  // The preview keeps the previous file's content until the new one is read: wait for a new
  // download URL (one blob URL per read), unless this file is the one already shown.
  const shown = page.locator('[data-testid="file-preview"]')
  const same = (await shown.count()) > 0 && (await shown.getAttribute('data-path')) === path
  const before =
    (await shown.count()) > 0 && !same
      ? await shown
          .locator('[data-testid="preview-download"]')
          .getAttribute('href')
          .catch(() => null)
      : null
  await item.click()
  const preview = page.locator(`[data-testid="file-preview"][data-path="${path}"]`)
  await page.waitForFunction(
    ([p, old]) => {
      const el = document.querySelector(`[data-testid="file-preview"][data-path="${p}"]`)
      const href = el?.querySelector('[data-testid="preview-download"]')?.getAttribute('href')
      return !!href && href !== old && !/Loading…/.test(el?.querySelector('.preview-body')?.textContent ?? '')
    },
    [path, before] as const,
  )
  return preview
}

/** The exact bytes the preview offers for download, as text. */
export async function previewText(preview: Locator): Promise<string> {
  const href = await preview.getByTestId('preview-download').getAttribute('href')
  return preview.page().evaluate(async url => (await fetch(url!)).text(), href)
}
