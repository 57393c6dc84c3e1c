// Types of scripts/sizes.mjs, for test/node/docs-sizes.test.ts.
export interface SizeFigures {
  size: Record<string, { bytes: number; minified: number; minifiedGzip: number }>
  pack: { packed: number; unpacked: number; files: number }
  tools: { node: string; esbuild: string; wrangler: string; vite: string }
}
export const UPDATE_COMMAND: string
export function kib(bytes: number): string
export function measure(): SizeFigures
export function blocks(figures: SizeFigures): Record<string, Record<string, string>>
export function fill(page: string, text: string, named: Record<string, string>): string
export function stalePages(figures?: SizeFigures): { page: string; text: string; want: string }[]
