// Bundles agent-vfs/run-js/typescript: ts-blank-space with all of typescript in one minified ESM
// file for browsers and workerd. `process.browser` is defined so typescript does not think it runs
// in Node (under nodejs_compat it would reach for __filename). Used by the build (dist/) and by the
// workers test project, whose pool cannot ship raw `typescript` ("Message is too large").
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Writes the pre-bundled loader to `outfile`. */
export async function buildTypeScriptLoader(outfile, source = 'src/runtimes/typescript/index.ts') {
  await build({
    entryPoints: [`${root}${source}`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    define: { 'process.browser': 'true' },
    outfile,
    logLevel: 'warning',
  })
}
