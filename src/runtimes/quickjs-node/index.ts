/**
 * QuickJS for Node, whole: the release variant and its wasm bytes. The root entry reaches this file
 * only through the package's private import `#quickjs-node`, whose `node` condition points here
 * (dist/quickjs-node.js) and every other condition at a module with nothing in it (dist/quickjs-none.js),
 * so browsers and Workers never load it. A Node app bundled into one file (esbuild `--platform=node`,
 * CJS or ESM) gets the bytes inside its bundle: no wasm to copy beside it, no file read at run time.
 *
 * The published file is built with the `workerd` condition (scripts/build.mjs), which picks the
 * variant's emscripten build that reads neither `import.meta.url` nor `require` (a CJS bundle has no
 * `import.meta.url`, an ESM bundle no `require`); it gets its wasm as a module, compiled from these bytes.
 */
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'
import type { QuickJSSyncVariant } from 'quickjs-emscripten-core'
import wasmBytes from './wasm-bytes.js'

export interface NodeQuickJs {
  variant: QuickJSSyncVariant
  /** The release build's `emscripten-module.wasm`. */
  wasmBytes(): Uint8Array
}

const quickJs: NodeQuickJs = { variant: RELEASE_SYNC as QuickJSSyncVariant, wasmBytes }
export default quickJs
