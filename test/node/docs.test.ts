// The user docs are tested: every TypeScript block type-checks against the source, the README's
// library quick start and curl recipe run (the recipe against a real `npm run serve`), and every
// relative link resolves. The markers a block can carry are described in ./docs-blocks.ts.
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { blocksOf, docFiles, needsWorkersTypes, relativeLinksOf, root, type DocBlock } from './docs-blocks.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

const exec = promisify(execFile)
const blocks = docFiles().flatMap(blocksOf)
const isTs = (b: DocBlock) => b.lang === 'ts' || b.lang === 'typescript'
const where = (b: DocBlock) => `${b.file}:${b.line}`
const fileNameOf = (b: DocBlock) => `${b.file.replace(/[^A-Za-z0-9]+/g, '_')}_${b.line}.ts`

describe('docs', () => {
  it('every block is TypeScript, marked, or says why it does not run', () => {
    expect(blocks.length).toBeGreaterThan(10)
    const unmarked = blocks.filter(b => !isTs(b) && !b.marker).map(where)
    expect(unmarked, 'mark these blocks (docs:run / docs:no-run REASON, see test/node/docs-blocks.ts)').toEqual([])
    const noReason = blocks.filter(b => b.marker?.kind === 'no-run' && b.marker.arg.length < 10).map(where)
    expect(noReason, 'a docs:no-run marker says why').toEqual([])
  })

  it('every relative link resolves', () => {
    const broken: string[] = []
    for (const file of docFiles()) {
      for (const { line, target } of relativeLinksOf(file)) {
        const path = join(root, dirname(file), decodeURI(target.split('#')[0]))
        if (!existsSync(path)) broken.push(`${file}:${line} → ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('the README is a front page: at most 12 KB, and it states the Node version engines says', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024)
    const engines = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
    const min = /^>=\s*(\d+(?:\.\d+)*)$/.exec(engines)?.[1]
    expect(min, `engines.node is ${engines}`).toBeDefined()
    expect(readme).toContain(`Node ${min} or later`)
  })

  it('every TypeScript block type-checks against the source (tsc with the repository paths)', async () => {
    const dir = join(root, '.tmp', 'docs-blocks')
    rmSync(dir, { recursive: true, force: true })
    const projects = { node: '../../../tsconfig.test.json', workers: '../../../test/workers/tsconfig.json' }
    const names = new Map<string, DocBlock>()
    for (const [project, base] of Object.entries(projects)) {
      mkdirSync(join(dir, project), { recursive: true })
      writeFileSync(
        join(dir, project, 'tsconfig.json'),
        JSON.stringify({ extends: base, include: ['*.ts'], compilerOptions: { noUnusedLocals: false } }),
      )
    }
    for (const b of blocks.filter(x => isTs(x) && x.marker?.kind !== 'no-run')) {
      const prelude = b.marker?.kind === 'prelude' ? `${b.marker.arg}\n` : ''
      // Blocks import the repository's own files relative to its root; the block sits three levels down.
      const code = b.code.replace(/from '\.\//g, "from '../../../")
      const name = fileNameOf(b)
      names.set(name, b)
      writeFileSync(join(dir, needsWorkersTypes(b.code) ? 'workers' : 'node', name), `${prelude}${code}\nexport {}\n`)
    }
    expect(names.size).toBeGreaterThan(5)
    const tsc = join(root, 'node_modules/typescript/bin/tsc')
    const errors: string[] = []
    for (const project of Object.keys(projects)) {
      const r = await exec(process.execPath, [tsc, '-p', join(dir, project)], { cwd: root }).catch((e: { stdout: string }) => ({
        stdout: e.stdout,
      }))
      for (const line of r.stdout.split('\n').filter(l => /error TS/.test(l))) {
        const m = /([A-Za-z0-9_]+\.ts)\((\d+),/.exec(line)
        const b = m ? names.get(m[1]) : undefined
        errors.push(
          b ? `${b.file} block at line ${b.line} (its line ${Number(m![2]) - (b.marker?.kind === 'prelude' ? 1 : 0)}): ${line}` : line,
        )
      }
    }
    expect(errors).toEqual([])
    // Two full tsc runs: minutes on a busy shared machine.
  }, 600_000)

  it('the TypeScript blocks marked docs:run tsx run and print what they say', async () => {
    const runnable = blocks.filter(b => b.marker?.kind === 'run' && b.marker.arg === 'tsx')
    expect(runnable.length).toBeGreaterThan(0)
    const dir = mkdtempSync(join(root, '.tmp', 'docs-run-'))
    try {
      for (const b of runnable) {
        const file = join(dir, fileNameOf(b))
        writeFileSync(file, `${b.code}\nexport {}\n`)
        const { stdout } = await exec(process.execPath, ['--import', 'tsx', file], { cwd: root, timeout: 120_000 })
        // The block's last line ends with a comment giving what it prints.
        const expected = /\/\/ (.+)$/.exec(b.code.trim().split('\n').at(-1)!)?.[1]
        expect(stdout.trim(), where(b)).toBe(expected)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)

  it('the README curl recipe works end to end against npm run serve: create, upload, send, answer, approve, read', async () => {
    const [recipe] = blocks.filter(b => b.marker?.kind === 'run' && b.marker.arg === 'curl-recipe')
    expect(recipe, 'the README has a docs:run curl-recipe block').toBeDefined()
    const exportLine = recipe.code.split('\n').find(l => l.startsWith('export U='))
    expect(exportLine, 'the recipe starts with export U=… T=…').toBeDefined()
    const data = mkdtempSync(join(tmpdir(), 'agent-vfs-docs-serve-'))
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data }
    delete env.DATABASE_URL
    delete env.AGENT_VFS_JWT_SECRET
    const server = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const untrackedBefore = await untracked()
    try {
      const { url, token } = await started(server)
      const script = recipe.code.replace(exportLine!, `export U=${url} T=${token}`)
      const { stdout } = await exec('timeout', ['300', 'bash', '-eo', 'pipefail', '-c', script], { cwd: root, timeout: 310_000 })
      expect(stdout).toContain('"mode":"task"')
      expect(stdout).not.toContain('"mode":"follow-up"')
      expect(stdout).toContain('What title should the appendix have?')
      expect(stdout).toMatch(/# Season One\n\nEpisodes: 6, covered: 6/)
      expect(await untracked(), 'the recipe leaves nothing in the repository').toEqual(untrackedBefore)
    } finally {
      server.kill('SIGTERM')
      await new Promise(r => server.once('exit', r))
      rmSync(data, { recursive: true, force: true })
    }
  }, 400_000)
})

async function untracked(): Promise<string[]> {
  const { stdout } = await exec('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root })
  return stdout
    .split('\n')
    .filter(l => l.startsWith('??') && !l.includes('.tmp/'))
    .sort()
}

function started(server: ReturnType<typeof spawn>): Promise<{ url: string; token: string }> {
  let log = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${log}`)), 120_000)
    server.stdout!.on('data', (d: Buffer) => {
      log += d
      const u = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(log)
      const t = /dev token \(owner "dev"[^)]*\): (\S+)/.exec(log)
      if (u && t) {
        clearTimeout(timer)
        resolve({ url: u[1], token: t[1] })
      }
    })
    server.stderr!.on('data', (d: Buffer) => (log += d))
    server.once('exit', code => reject(new Error(`the server exited (${code}): ${log}`)))
  })
}
