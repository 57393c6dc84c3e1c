// Bytes through agent-vfs/bash: commands that count or hash bytes see the file's bytes exactly,
// whether the workspace holds it or the command line staged it (reads take shortcuts through the
// workspace's decoded text; these are the files where a shortcut would go wrong).
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs } from '../../src/index.js'
import { createBash } from '../../src/bash/index.js'

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex')
const files: Record<string, Uint8Array> = {
  ascii: new TextEncoder().encode('plain\ntext\n'),
  utf8: new TextEncoder().encode('héllo wörld\n'),
  bom: Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0x62, 0x63, 0x0a),
  invalid: Uint8Array.of(0x61, 0xff, 0x62, 0x80, 0x0a),
}

let n = 0
async function shell() {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bytes', scope: `s${++n}` })
  for (const [name, bytes] of Object.entries(files)) await vfs.writeFile(`/work/${name}`, bytes)
  return { vfs, bash: createBash({ vfs }) }
}

describe('bytes through agent-vfs/bash', () => {
  for (const [name, bytes] of Object.entries(files)) {
    it(`wc -c and md5sum see the ${name} file's bytes, held or staged`, async () => {
      const { bash } = await shell()
      const held = await bash.exec(`wc -c < /work/${name}; md5sum /work/${name}`)
      expect(held.stdout).toBe(`${bytes.length}\n${md5(bytes)}  /work/${name}\n`)
      const staged = await bash.exec(`cp /work/${name} /work/copy && wc -c < /work/copy && cat /work/copy | md5sum`)
      expect(staged.stdout).toBe(`${bytes.length}\n${md5(bytes)}  -\n`)
    })
  }

  it('cat copies a file with a byte-order mark and invalid UTF-8 byte for byte', async () => {
    const { vfs, bash } = await shell()
    expect((await bash.exec('cat /work/bom /work/invalid > /work/both')).exitCode).toBe(0)
    expect(await vfs.readFile('/work/both')).toEqual(Uint8Array.from([...files.bom, ...files.invalid]))
  })

  it('grep reads text with a byte-order mark and non-ASCII letters', async () => {
    const { bash } = await shell()
    expect((await bash.exec('grep -c wörld /work/utf8; grep -n abc /work/bom | wc -l')).stdout).toBe('1\n1\n')
  })
})
