/** wrangler (CompiledWasm rule) and the workers vitest pool import the QuickJS wasm as a compiled module. */
declare module '@jitl/quickjs-wasmfile-release-sync/wasm' {
  const wasmModule: WebAssembly.Module
  export default wasmModule
}

/**
 * The package's private import of QuickJS for Node (package.json `imports`): src/runtimes/quickjs-node/index.ts
 * under the `node` condition, `undefined` under every other (none.ts from the sources, dist/quickjs-none.js built).
 */
declare module '#quickjs-node' {
  const quickJs: { variant: import('quickjs-emscripten-core').QuickJSSyncVariant; wasmBytes(): Uint8Array } | undefined
  export default quickJs
}
