import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { relativeLinksOf } from './docs-blocks.js'

// The package a user installs: the `npm pack` tarball into empty projects outside this repository
// (a project inside it would find this repository's node_modules). What installing costs, what the
// tarball carries, and what an entry says when its optional peer is missing. `npm test` builds first.
const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  name: string
  peerDependencies: Record<string, string>
  devDependencies: Record<string, string>
}
/** The oldest hono the package declares (its peer range's floor), installed and run below. */
const HONO_FLOOR = '4.11.4'
const MAX_PACKAGES = 20
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/.test(k)))
const figures: Record<string, unknown> = {}

let tmp: string
let tarball: string
let packedFiles: string[]
let installed: string

/** A fresh project in `tmp` with `packages` installed by npm; returns its folder and npm's output. */
async function install(name: string, packages: string[]): Promise<{ dir: string; log: string }> {
  const dir = join(tmp, name)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }))
  const { stdout, stderr } = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], {
    cwd: dir,
    env,
    timeout: 240_000,
  })
  return { dir, log: stdout + stderr }
}

/** Every installed package (`node_modules/**` folders with a package.json, nested ones included). */
function installedPackages(dir: string): string[] {
  const out: string[] = []
  const walk = (modules: string) => {
    if (!existsSync(modules)) return
    for (const name of readdirSync(modules)) {
      if (name.startsWith('.')) continue
      const scoped = name.startsWith('@') ? readdirSync(join(modules, name)).map(n => `${name}/${n}`) : [name]
      for (const p of scoped) {
        if (!existsSync(join(modules, p, 'package.json'))) continue
        out.push(p)
        walk(join(modules, p, 'node_modules'))
      }
    }
  }
  walk(join(dir, 'node_modules'))
  return out
}

/** Runs an ES module program with Node in `cwd`; its stdout. */
async function node(cwd: string, program: string): Promise<string> {
  return (await run(process.execPath, ['--input-type=module', '-e', program], { cwd, env, timeout: 60_000 })).stdout
}

describe('the packed package', () => {
  beforeAll(async () => {
    if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run `node scripts/build.mjs` (npm test does)')
    tmp = mkdtempSync(join(tmpdir(), 'agent-vfs-pack-'))
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: root, env, timeout: 120_000 })
    const report = JSON.parse(packed.stdout)[0] as { filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }
    tarball = join(tmp, report.filename)
    packedFiles = report.files.map(f => f.path)
    Object.assign(figures, { packedBytes: report.size, unpackedBytes: report.unpackedSize, files: packedFiles.length })
    installed = (await install('empty', [tarball])).dir
    const unpacked = join(tmp, 'unpacked')
    mkdirSync(unpacked)
    await run('tar', ['-xzf', tarball, '-C', unpacked])
  }, 300_000)

  afterAll(() => {
    mkdirSync(`${root}.tmp`, { recursive: true })
    writeFileSync(`${root}.tmp/pack.json`, JSON.stringify(figures, null, 2) + '\n')
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  it(`installs alone into an empty project with at most ${MAX_PACKAGES} packages: no HTTP framework, no MCP SDK`, () => {
    const packages = installedPackages(installed)
    figures.installedPackages = packages.length
    expect(packages.length, packages.join(', ')).toBeLessThanOrEqual(MAX_PACKAGES)
    for (const heavy of ['express', 'hono', '@modelcontextprotocol/sdk', '@hono/zod-openapi', 'typescript'])
      expect(packages, heavy).not.toContain(heavy)
  })

  it('runs a program with nothing but what it installed', async () => {
    const out = await node(
      installed,
      `import { createRunJs, memoryStore, openVfs } from 'agent-vfs'
      const vfs = await openVfs({ store: memoryStore(), namespace: 'p', scope: 's' })
      console.log(JSON.stringify(await createRunJs({ vfs, typescript: false }).run('return 6 * 7')))`,
    )
    expect(JSON.parse(out)).toMatchObject({ success: true, result: 42 })
  }, 60_000)

  it('agent-vfs/ai-sdk-ui loads with nothing but what it installed (no ai, no React: it imports only the client)', async () => {
    const out = await node(
      installed,
      `import { SessionChatTransport } from 'agent-vfs/ai-sdk-ui'
      import { createSessionClient } from 'agent-vfs/client'
      const transport = new SessionChatTransport({ client: createSessionClient({ baseUrl: 'http://127.0.0.1:1', token: 't' }) })
      console.log(JSON.stringify([transport.resumeStreamIsReplay, transport.sendAutomaticallyWhen({ messages: [] })]))`,
    )
    expect(JSON.parse(out)).toEqual([true, false])
  }, 60_000)

  it('agent-vfs/client loads with nothing but what it installed (no hono: it imports nothing)', async () => {
    const out = await node(
      installed,
      `import { createSessionClient, SessionApiError } from 'agent-vfs/client'
      const client = createSessionClient({ baseUrl: 'http://127.0.0.1:1', token: 't' })
      const error = await client.api.listSessions().catch(e => e)
      console.log(JSON.stringify([error instanceof SessionApiError, error.code]))`,
    )
    expect(JSON.parse(out)).toEqual([true, 'network'])
  }, 60_000)

  it('TypeScript programs: plain Node finds the loader; a one-file bundle deployed alone says so at start-up, or bundles it', async () => {
    const program = `import { createRunJs, memoryStore, openVfs } from 'agent-vfs'
      const vfs = await openVfs({ store: memoryStore(), namespace: 'p', scope: 'ts' })
      console.log(JSON.stringify(await createRunJs({ vfs }).run('const n: number = 21; return n * 2')))`
    const plain = await run(process.execPath, ['--input-type=module', '-e', program], { cwd: installed, env, timeout: 60_000 })
    expect(JSON.parse(plain.stdout)).toMatchObject({ success: true, result: 42 })
    expect(plain.stderr).toBe('')
    // test/consumers/node-fn/ts-bundled.js, bundled by esbuild's defaults (CJS, and ESM) and run as that file alone.
    const source = join(installed, 'ts-bundled.js')
    writeFileSync(source, readFileSync(`${root}test/consumers/node-fn/ts-bundled.js`))
    const alone = mkdtempSync(join(tmp, 'deployed-'))
    for (const [format, file] of [
      ['cjs', 'fn.cjs'],
      ['esm', 'fn.mjs'],
    ]) {
      await run(
        `${root}node_modules/esbuild/bin/esbuild`,
        [source, '--bundle', '--platform=node', `--format=${format}`, `--outfile=${join(alone, file)}`, '--log-level=warning'],
        { env },
      )
      const call = file.endsWith('.cjs') ? `require('./${file}')` : `import('./${file}')`
      const code = `Promise.resolve(${call}).then(m => m.handler()).then(r => console.log(JSON.stringify(r)))`
      const { stdout, stderr } = await run(process.execPath, ['-e', code], { cwd: alone, env, timeout: 60_000 })
      const { byDefault, bundled } = JSON.parse(stdout)
      expect(bundled, file).toMatchObject({ success: true, result: 42 })
      expect(byDefault, file).toMatchObject({ success: false, error: { name: 'SyntaxError' } })
      expect(byDefault.error.message).toMatch(/looks like TypeScript .* the TypeScript loader could not be loaded/)
      // Once per process, on the host's console, from the first createRunJs with the default loader.
      expect(stderr.match(/agent-vfs: run_js cannot load its TypeScript loader here/g), file).toHaveLength(1)
    }
  }, 180_000)

  it('carries the QuickJS wasm once per form: one .wasm file (workerd, browsers), one embedded copy (Node)', () => {
    const wasmBytes = readFileSync(join(tmp, 'unpacked/package/dist/quickjs.wasm'))
    expect(packedFiles.filter(f => f.endsWith('.wasm'))).toEqual(['dist/quickjs.wasm'])
    // The base64 form starts with the same characters whatever the file around it.
    const base64Head = wasmBytes.subarray(0, 3000).toString('base64').slice(0, 3996)
    const embedding = packedFiles.filter(
      f => f.endsWith('.js') && readFileSync(join(tmp, 'unpacked/package', f), 'utf8').includes(base64Head),
    )
    expect(embedding).toEqual(['dist/quickjs-node.js'])
  })

  it('an entry whose optional peer is missing names it with the command that installs it', async () => {
    const messages = JSON.parse(
      await node(
        installed,
        `const out = {}
        for (const entry of ['mcp', 'session', 'mastra', 'bash', 'react'])
          out[entry] = await import('agent-vfs/' + entry).then(() => 'loaded', e => e.code + ': ' + e.message)
        console.log(JSON.stringify(out))`,
      ),
    )
    const v = pkg.devDependencies
    expect(messages).toEqual({
      mcp: `ERR_MODULE_NOT_FOUND: agent-vfs/mcp needs @modelcontextprotocol/sdk and @cfworker/json-schema: npm install @modelcontextprotocol/sdk@${v['@modelcontextprotocol/sdk']} @cfworker/json-schema@${v['@cfworker/json-schema']}`,
      session: `ERR_MODULE_NOT_FOUND: agent-vfs/session needs hono and @hono/zod-openapi: npm install hono@${v.hono} @hono/zod-openapi@${v['@hono/zod-openapi']}`,
      mastra: `ERR_MODULE_NOT_FOUND: agent-vfs/mastra needs @mastra/core: npm install @mastra/core@${v['@mastra/core']}`,
      bash: `ERR_MODULE_NOT_FOUND: agent-vfs/bash needs just-bash: npm install just-bash@${v['just-bash']}`,
      react: `ERR_MODULE_NOT_FOUND: agent-vfs/react needs react: npm install react@${v.react}`,
    })
    expect(readFileSync(`${root}docs/bash.md`, 'utf8').replace(/\s+/g, ' ')).toContain(messages.bash.slice('ERR_MODULE_NOT_FOUND: '.length))
    // The documented message, word for word.
    expect(readFileSync(`${root}docs/mcp.md`, 'utf8').replace(/\s+/g, ' ')).toContain(messages.mcp.slice('ERR_MODULE_NOT_FOUND: '.length))
  }, 60_000)

  it('every relative link of the packed README and docs resolves inside the package (images are not shipped)', () => {
    const base = join(tmp, 'unpacked/package')
    const docs = packedFiles.filter(f => f.endsWith('.md'))
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/run-js.md', 'docs/mcp.md']))
    expect(packedFiles).toContain('LICENSE')
    const broken: string[] = []
    const images: string[] = []
    for (const file of docs) {
      for (const { line, target } of relativeLinksOf(file, base)) {
        if (existsSync(join(base, dirname(file), decodeURI(target.split('#')[0])))) continue
        ;(/\.png$/.test(target) ? images : broken).push(`${file}:${line} → ${target}`)
      }
    }
    expect(broken).toEqual([])
    // Screenshots stay in the repository (1.3 MB): an image that is not shipped shows its alt text.
    expect(images.length).toBeLessThan(20)
  })

  it(`installs with the app's hono at the declared floor (${HONO_FLOOR}) and every optional peer: no ERESOLVE, one hono`, async () => {
    expect(pkg.peerDependencies.hono).toBe(`^${HONO_FLOOR}`)
    const v = pkg.devDependencies
    const { dir, log } = await install('hono-floor', [
      tarball,
      `hono@${HONO_FLOOR}`,
      `@hono/zod-openapi@${v['@hono/zod-openapi']}`,
      `@modelcontextprotocol/sdk@${v['@modelcontextprotocol/sdk']}`,
      `@cfworker/json-schema@${v['@cfworker/json-schema']}`,
    ])
    expect(log).not.toMatch(/ERESOLVE|overriding peer dependency/i)
    expect(installedPackages(dir).filter(p => p === 'hono')).toEqual(['hono'])
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/hono/package.json'), 'utf8')).version).toBe(HONO_FLOOR)
    // The session app and the MCP entry run on it, inside the app's own hono app: a malformed body is
    // hono's 400 (two copies of hono answer 500: instanceof fails), a request without a token 401.
    const out = await node(
      dir,
      `import { Hono } from 'hono'
      import { memoryStore } from 'agent-vfs'
      import { scriptedModel } from 'agent-vfs/agent'
      import { createSessionApp, createSessionHost, mintToken } from 'agent-vfs/session'
      import { mountSessionMcp } from 'agent-vfs/mcp'
      const secret = 'consumer-secret-consumer-secret-0123456789'
      const done = { setup: () => ({ model: scriptedModel(() => ({ text: 'done' })) }) }
      const host = createSessionHost({ store: memoryStore(), agents: { done } })
      const sessions = createSessionApp(host, { auth: { secret } })
      mountSessionMcp(sessions, host)
      const app = new Hono().route('/api', sessions)
      const headers = { authorization: 'Bearer ' + (await mintToken(secret, 'ana')), 'content-type': 'application/json' }
      const malformed = await app.request('/api/sessions', { method: 'POST', headers, body: '{"profile": ' })
      const anonymous = await app.request('/api/sessions/x/mcp', { method: 'POST', body: '{}' })
      console.log(JSON.stringify([malformed.status, anonymous.status]))
      process.exit(0)`,
    )
    expect(JSON.parse(out)).toEqual([400, 401])
    figures.honoFloorPackages = installedPackages(dir).length
  }, 300_000)

  it('the unpacked size stays where the single copies put it', () => {
    // Before: 273 files, 8.0 MB unpacked (four copies of the wasm). The TypeScript loader is 3.5 MB of it.
    expect(figures.unpackedBytes as number).toBeLessThan(7 * 1024 * 1024)
    expect(statSync(tarball).size).toBeLessThan(2.5 * 1024 * 1024)
  })
})
