/**
 * agent-vfs/mastra: agent-vfs for Mastra. The only entry that imports `@mastra/core` (a peer
 * dependency); nothing in the core entry depends on it. It imports the core (`agent-vfs`) and the
 * agent runtime (`agent-vfs/agent`) by name, so their classes are the ones your app already has.
 */
export {
  QuickJsCodeModeTransport,
  type QuickJsCodeModeTransportOptions,
  type CodeModeFetchOptions,
  type CodeModeFetchRequest,
} from './code-mode.js'
export { createSuspendableCodeMode, type SuspendableCodeModeConfig } from './code-mode-suspend.js'
export { runJsTool, type MastraRunJsToolOptions } from './run-js-tool.js'
export { RUN_JS_DESCRIPTION } from 'agent-vfs/agent'
export { VfsFilesystem, type VfsFilesystemOptions, type VfsFilesystemMetadata } from './filesystem.js'
export {
  vfsWorkspaceResolver,
  type VfsWorkspaceResolver,
  type VfsWorkspaceResolverOptions,
  type VfsWorkspaceConfig,
  type VfsSessionInfo,
} from './workspace-resolver.js'
