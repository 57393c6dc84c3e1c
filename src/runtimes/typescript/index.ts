/**
 * agent-vfs/run-js/typescript: the TypeScript stripper run_js uses for programs that are not plain
 * JavaScript (ts-blank-space, which carries all of `typescript`). The published file is pre-bundled
 * and minified for browsers and workerd (`process.browser` defined, so typescript does not look for
 * Node), so a bundler or the Workers vitest pool takes it as one module:
 *
 * ```ts
 * createRunJs({ vfs, typescript: () => import('agent-vfs/run-js/typescript') })
 * ```
 */
import blankSpace from 'ts-blank-space'
import type { TypeScriptStripper } from 'agent-vfs'

const strip: TypeScriptStripper = blankSpace
export default strip
