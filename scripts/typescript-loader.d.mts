/** Writes the pre-bundled agent-vfs/run-js/typescript loader (ts-blank-space + typescript) to `outfile`. */
export function buildTypeScriptLoader(outfile: string): Promise<void>
