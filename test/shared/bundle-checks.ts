/**
 * Checks on the built dist/index.js that hold in every runtime: what it imports, what it must not touch.
 * esbuild prints every specifier in double quotes, so single-quoted `import('…')` inside a message
 * (advice such as "pass typescript: () => import('agent-vfs/run-js/typescript')") is not an import.
 */
export function bundleImports(source: string): string[] {
  const dynamic = [...source.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map(m => m[1])
  return [...new Set([...staticImports(source), ...dynamic])].sort()
}

/** The specifiers a module imports statically: what loads (and is parsed) with it, before any code runs. */
export function staticImports(source: string): string[] {
  return [...new Set([...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*"([^"]+)"/gm)].map(m => m[1]))].sort()
}

/** Forbidden runtime dependencies: Node built-ins, Buffer, process access, CommonJS require. */
export function forbiddenUses(source: string): string[] {
  const problems: string[] = []
  if (/["']node:/.test(source)) problems.push('imports a node: module')
  if (/\bBuffer\./.test(source) || /\bnew Buffer\(/.test(source)) problems.push('uses Buffer')
  if (/\bprocess\.\w/.test(source)) problems.push('reads process.*')
  if (/\brequire\(\s*["']/.test(source)) problems.push('calls require()')
  if (/["'](pg|@electric-sql\/pglite|@mastra\/core)["']/.test(source)) problems.push('imports pg, PGlite or @mastra/core')
  return problems
}
