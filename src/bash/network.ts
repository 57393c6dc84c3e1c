import type { SecureFetch } from 'just-bash'
import type { RunJsFetch } from 'agent-vfs'
import { capabilityFetch, type FetchAnswer } from 'agent-vfs/internal'

const encoder = new TextEncoder()

/**
 * `curl` for a command line, under run_js's fetch rules (docs/run-js-fetch.md): the same allow-list
 * by exact origin and path, private addresses refused, secrets added as headers and redacted from
 * what comes back, one response budget per command line (keyed by its signal). Without rules a
 * command line has no network: just-bash then registers no `curl` at all.
 */
export function bashFetch(rules: RunJsFetch, signalOf: () => AbortSignal): SecureFetch {
  const fetchOnce = capabilityFetch(rules)
  return async (url, options = {}): ReturnType<SecureFetch> => {
    const headers: Record<string, string> = {}
    new Headers(options.headers).forEach((value, name) => (headers[name] = value))
    const input = { url, method: options.method ?? 'GET', headers, ...(options.body === undefined ? {} : { body: options.body }) }
    const answer = (await fetchOnce(input, { signal: signalOf() })) as FetchAnswer
    return {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
      url: answer.url,
      body: encoder.encode(answer.body),
    }
  }
}
