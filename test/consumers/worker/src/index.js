// JavaScript programs only: the smallest Worker.
import { app, workspaceClass } from './workspace.js'

export const Workspace = workspaceClass(false)
export default app
