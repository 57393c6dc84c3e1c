/**
 * Vitest global setup for the workers project: pre-bundles ts-blank-space (with typescript) into one
 * minified browser-platform module, because the workers pool cannot ship raw `typescript` (8.7 MB)
 * into workerd ("WebSocket 1009 Message is too large", FIELD-NOTES). `process.browser` is defined so
 * typescript does not think it runs in Node.
 */
import { build } from 'esbuild'
import { existsSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
export const TS_VENDOR = `${root}node_modules/.cache/agent-vfs/ts-blank-space.mjs`

export default async function setup(): Promise<void> {
  const source = `${root}node_modules/ts-blank-space/package.json`
  if (existsSync(TS_VENDOR) && statSync(TS_VENDOR).mtimeMs > statSync(source).mtimeMs) return
  await build({
    stdin: { contents: `export { default } from 'ts-blank-space'`, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    define: { 'process.browser': 'true' },
    outfile: TS_VENDOR,
    logLevel: 'warning',
  })
}
