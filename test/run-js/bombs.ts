/** Guest programs that allocate without end, one per kind of memory QuickJS can grow. */
export const MEMORY_BOMBS: Readonly<Record<string, string>> = {
  arrays: `const a = []; for (;;) a.push(new Array(1000).fill(1))`,
  strings: `const a = []; let i = 0; for (;;) a.push('x'.repeat(100000) + (i++))`,
  'typed arrays': `const a = []; for (;;) a.push(new Uint8Array(1 << 20))`,
  objects: `const a = []; for (let i = 0; ; i++) a.push({ i, s: 'k' + i, o: { i } })`,
  maps: `const m = new Map(); for (let i = 0; ; i++) m.set('key' + i, [i, i])`,
}
