/**
 * Vitest global setup for the workers project: builds agent-vfs/run-js/typescript (ts-blank-space
 * with typescript, pre-bundled and minified, as dist/ ships it) into the cache, because the workers
 * pool cannot ship raw `typescript` (8.7 MB) into workerd ("WebSocket 1009 Message is too large").
 * The workers config aliases `agent-vfs/run-js/typescript` to this file.
 */
import { existsSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildTypeScriptLoader } from '../../scripts/typescript-loader.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
export const TS_VENDOR = `${root}node_modules/.cache/agent-vfs/run-js-typescript.mjs`

export default async function setup(): Promise<void> {
  const newest = Math.max(
    ...[`${root}node_modules/ts-blank-space/package.json`, `${root}scripts/typescript-loader.mjs`].map(f => statSync(f).mtimeMs),
  )
  if (existsSync(TS_VENDOR) && statSync(TS_VENDOR).mtimeMs > newest) return
  await buildTypeScriptLoader(TS_VENDOR)
}
