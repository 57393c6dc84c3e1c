// agent-vfs/bash in workerd: the shared suite (test/bash/suite.ts) on a Durable Object's storage and
// on the memory store, and which of just-bash's commands run in a Worker.
import { describe, expect, it } from 'vitest'
import { getCommandNames } from 'just-bash'
import { memoryStore, openVfs } from '../../src/index.js'
import { createBash } from 'agent-vfs/bash'
import { bashSuite } from '../bash/suite.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

/** just-bash commands that need Node (its browser bundle, which workerd and browsers load, says so). */
const WORKERD_MISSING = ['tar', 'yq', 'xan', 'sqlite3']

bashSuite('a Durable Object (workerd)', { store: () => storeInsideDurableObject('bash-suite') })
const memory = memoryStore()
bashSuite('the memory store (workerd)', { store: () => memory })

describe('just-bash commands in workerd', () => {
  it('text, data and file commands run', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'n', scope: 'cmds' })
    await vfs.writeFile('/d/a.csv', 'name,n\nx,1\ny,2\n')
    const bash = createBash({ vfs })
    const r = await bash.exec(
      [
        'cat /d/a.csv | tail -n +2 | cut -d, -f2 | sort -n | tr "\\n" " "; echo',
        "awk -F, 'NR>1 {s+=$2} END {print s}' /d/a.csv",
        'echo \'{"a":{"b":3}}\' | jq .a.b',
        'echo hi | base64 | base64 -d',
        'echo hi | sha256sum | cut -c1-8',
        'seq 3 | xargs echo',
        'find /d -type f | wc -l',
        'date -u +%Y >/dev/null && echo date',
        'diff <(echo a) <(echo b) >/dev/null; echo diff=$?',
        'echo hi | gzip | gunzip',
      ].join('\n'),
    )
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('1 2 \n3\n3\nhi\n98ea6e4f\n1 2 3\n1\ndate\ndiff=1\nhi\n')
    expect(r.exitCode).toBe(0)
  })

  it('lacks exactly tar, yq, xan and sqlite3 (Node-only in just-bash), and says so', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'n', scope: 'missing' })
    const bash = createBash({ vfs })
    expect(getCommandNames().filter(name => WORKERD_MISSING.includes(name))).toEqual([])
    for (const name of WORKERD_MISSING) {
      const r = await bash.exec(`echo | ${name} x`)
      expect(r.exitCode).not.toBe(0)
      expect(r.stderr).toMatch(/not available in browser environments/)
    }
  })
})
