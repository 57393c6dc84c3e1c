/**
 * `agent-vfs/bash`: a bash (just-bash, an optional peer dependency: `npm install just-bash`) whose
 * filesystem is the workspace; each command line's writes land as one group commit. docs/bash.md.
 */
export { createBash, type CreateBashOptions, type BashExecOptions, type BashResult, type WorkspaceBash } from './create-bash.js'
export { DEFAULT_BASH_LIMITS, type BashLimits } from './limits.js'
