// TypeScript programs too: the pre-bundled loader, loaded on the first program that is not JavaScript.
import { app, workspaceClass } from './workspace.js'

export const Workspace = workspaceClass(() => import('agent-vfs/run-js/typescript'))
export default app
