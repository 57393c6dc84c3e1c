/** wrangler (CompiledWasm rule) and the workers vitest pool import the QuickJS wasm as a compiled module. */
declare module '@jitl/quickjs-wasmfile-release-sync/wasm' {
  const wasmModule: WebAssembly.Module
  export default wasmModule
}
