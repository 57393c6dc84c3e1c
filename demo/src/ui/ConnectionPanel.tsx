import { useEffect, useState } from 'preact/hooks'
import type { DemoMode, DemoSettings } from '../api/settings.js'

/** The panel's form: every field a string, turned into {@link DemoSettings} on submit. */
interface Form {
  mode: DemoMode
  remoteUrl: string
  token: string
  modelUrl: string
  apiKey: string
  model: string
}

const toForm = (s: DemoSettings): Form => ({
  mode: s.mode,
  remoteUrl: s.remote?.baseUrl ?? '',
  token: s.remote?.token ?? '',
  modelUrl: s.model?.baseUrl ?? '',
  apiKey: s.model?.apiKey ?? '',
  model: s.model?.model ?? '',
})

function fromForm(f: Form): DemoSettings {
  const out: DemoSettings = { mode: f.mode }
  if (f.remoteUrl.trim() || f.token.trim()) out.remote = { baseUrl: f.remoteUrl.trim(), token: f.token.trim() }
  if (f.modelUrl.trim() && f.model.trim())
    out.model = { baseUrl: f.modelUrl.trim(), model: f.model.trim(), ...(f.apiKey.trim() ? { apiKey: f.apiKey.trim() } : {}) }
  return out
}

/** Where the session host runs, and which model the in-tab host uses. Saved in this browser only. */
export function ConnectionPanel(props: {
  settings: DemoSettings
  status: string
  /** The label of the host connected to; the panel folds to its summary line each time it changes. */
  connected?: string
  busy: boolean
  onConnect(settings: DemoSettings): void
}) {
  const [f, setF] = useState<Form>(() => toForm(props.settings))
  // Open until connected (people and tests find the form), then one line; a person may unfold it.
  const [open, setOpen] = useState(true)
  useEffect(() => setOpen(!props.connected), [props.connected])
  const set = (patch: Partial<Form>) => setF({ ...f, ...patch })
  const val = (e: Event) => (e.target as HTMLInputElement).value
  const partialModel = !!(f.modelUrl.trim() || f.model.trim()) && !(f.modelUrl.trim() && f.model.trim())
  return (
    <details class="panel connection" open={open} onToggle={e => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        <h2>Connection</h2>{' '}
        <span class="hint" data-testid="connection-status" role="status">
          {props.status}
        </span>
      </summary>
      <form
        onSubmit={e => {
          e.preventDefault()
          props.onConnect(fromForm(f))
        }}
      >
        <fieldset>
          <legend>Where the agent runs</legend>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="tab"
              checked={f.mode === 'tab'}
              data-testid="mode-tab"
              onChange={() => set({ mode: 'tab' })}
            />{' '}
            In this tab
          </label>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="remote"
              checked={f.mode === 'remote'}
              data-testid="mode-remote"
              onChange={() => set({ mode: 'remote' })}
            />{' '}
            Remote
          </label>
        </fieldset>
        {f.mode === 'remote' ? (
          <fieldset>
            <legend>Session host</legend>
            <label>
              Base URL (empty: this page's own origin)
              <input
                type="text"
                inputMode="url"
                value={f.remoteUrl}
                data-testid="remote-base-url"
                placeholder={location.origin}
                onInput={e => set({ remoteUrl: val(e) })}
              />
            </label>
            <label>
              Token
              <input
                type="password"
                value={f.token}
                autoComplete="off"
                data-testid="remote-token"
                placeholder="the dev token npm run serve prints"
                onInput={e => set({ token: val(e) })}
              />
            </label>
          </fieldset>
        ) : (
          <fieldset>
            <legend>Model: OpenAI-compatible (optional; empty runs the scripted model offline)</legend>
            <label>
              Base URL
              <input
                type="text"
                inputMode="url"
                value={f.modelUrl}
                data-testid="openai-base-url"
                placeholder="https://api.openai.com/v1"
                onInput={e => set({ modelUrl: val(e) })}
              />
            </label>
            <label>
              API key
              <input type="password" value={f.apiKey} autoComplete="off" data-testid="openai-key" onInput={e => set({ apiKey: val(e) })} />
            </label>
            <label>
              Model
              <input
                type="text"
                value={f.model}
                data-testid="openai-model"
                placeholder="gpt-4o-mini"
                onInput={e => set({ model: val(e) })}
              />
            </label>
            <p class="hint">
              {partialModel
                ? 'Enter both a base URL and a model to use an endpoint; until then the scripted model runs.'
                : f.modelUrl.trim()
                  ? 'The in-tab agent calls this endpoint from your browser.'
                  : 'The scripted script-appendix model runs offline.'}{' '}
              Kept only in this browser.
            </p>
          </fieldset>
        )}
        <button type="submit" class="primary" disabled={props.busy} data-testid="connect">
          Connect
        </button>
      </form>
    </details>
  )
}
