import { SessionClient } from '../api/client.js'
import type { DemoSettings } from '../api/settings.js'

/** What the UI needs of the in-tab runtime (demo/src/runtime/index.ts). */
interface InTabRuntimeModule {
  startInTabRuntime(options: {
    settings: DemoSettings
  }): Promise<{ baseUrl: string; token: string; fetch: typeof fetch; terminate(): void }>
}

// The in-tab runtime (a Web Worker session host) is its own chunk, loaded only in "In this tab"
// mode; a build without it still runs remote (import.meta.glob is {} when the file is absent).
const tabRuntime = import.meta.glob<InTabRuntimeModule>('../runtime/index.ts')

/** A connected host: the API client, and how to let go of it. */
export interface Connection {
  client: SessionClient
  label: string
  close(): void
}

/** Connects as the settings say: starts the in-tab runtime, or points a client at the remote host. */
export async function connect(settings: DemoSettings): Promise<Connection> {
  if (settings.mode === 'remote') {
    const token = settings.remote?.token ?? ''
    if (!token) throw new Error('Enter a token: npm run serve prints a dev token.')
    // Empty or relative: this page's own origin (the Worker serving the demo, or a dev proxy).
    const url = new URL(settings.remote?.baseUrl || '/', location.href).href
    return { client: new SessionClient({ baseUrl: url, token }), label: `remote ${url}`, close() {} }
  }
  const load = tabRuntime['../runtime/index.ts']
  if (!load) throw new Error('This build has no in-tab runtime: choose Remote.')
  const { startInTabRuntime } = await load()
  const tab = await startInTabRuntime({ settings })
  return {
    client: new SessionClient({ baseUrl: tab.baseUrl, token: tab.token, fetch: tab.fetch }),
    label: 'in this tab',
    close: () => tab.terminate(),
  }
}
