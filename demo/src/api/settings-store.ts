import type { DemoSettings } from './settings.js'

/** The localStorage key of the demo's settings; change it when their shape changes incompatibly. */
export const SETTINGS_KEY = 'agent-vfs-demo.settings.v1'

/** A fresh browser: the in-tab host with the scripted model. */
export const DEFAULT_SETTINGS: DemoSettings = { mode: 'tab' }

/**
 * Reads the settings this browser saved; anything missing or malformed falls back to the defaults,
 * field by field (a hand-edited or old entry never breaks the page).
 */
export function loadSettings(storage: Pick<Storage, 'getItem'> = localStorage): DemoSettings {
  let raw: unknown
  try {
    raw = JSON.parse(storage.getItem(SETTINGS_KEY) ?? 'null')
  } catch {
    raw = null
  }
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, any>
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const out: DemoSettings = { mode: r.mode === 'remote' ? 'remote' : 'tab' }
  if (r.remote && typeof r.remote === 'object') out.remote = { baseUrl: str(r.remote.baseUrl), token: str(r.remote.token) }
  if (r.model && typeof r.model === 'object' && str(r.model.baseUrl) && str(r.model.model)) {
    out.model = {
      baseUrl: str(r.model.baseUrl),
      model: str(r.model.model),
      ...(str(r.model.apiKey) ? { apiKey: str(r.model.apiKey) } : {}),
    }
  }
  return out
}

/** True once this browser has connected (and saved its settings) before. */
export function hasSavedSettings(storage: Pick<Storage, 'getItem'> = localStorage): boolean {
  return storage.getItem(SETTINGS_KEY) !== null
}

/** Saves the settings in this browser only (the key never leaves it but towards the endpoint it names). */
export function saveSettings(settings: DemoSettings, storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(SETTINGS_KEY, JSON.stringify(settings))
}
