/** The files of the kill test's merging commit (history-kill-child.ts, mode `merge`): one edit near each end. */
const lines = Array.from({ length: 40 }, (_, i) => `line ${i}\n`)
export const MERGE_BASE = lines.join('')
export const MERGE_OURS = ['ours\n', ...lines.slice(1)].join('')
export const MERGE_THEIRS = [...lines.slice(0, -1), 'theirs\n'].join('')
export const MERGED = ['ours\n', ...lines.slice(1, -1), 'theirs\n'].join('')
