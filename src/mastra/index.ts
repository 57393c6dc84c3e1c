/**
 * agent-vfs/mastra: agent-vfs for Mastra. The only entry that imports `@mastra/core` (a peer
 * dependency); nothing in the core entry depends on it.
 */
export { QuickJsCodeModeTransport, type QuickJsCodeModeTransportOptions } from './code-mode.js'
export { runJsTool, RUN_JS_DESCRIPTION } from './run-js-tool.js'
export { VfsFilesystem, type VfsFilesystemOptions, type VfsFilesystemMetadata } from './filesystem.js'
export {
  vfsWorkspaceResolver, type VfsWorkspaceResolver, type VfsWorkspaceResolverOptions, type VfsWorkspaceConfig, type VfsSessionInfo,
} from './workspace-resolver.js'
