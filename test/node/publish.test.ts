// The package is ready to publish (issue 17: `npm install agent-vfs` answers E404 until it is):
// `npm publish --dry-run` passes, npm corrects nothing in package.json, and the tarball holds every
// entry the exports name, the README and the licence terms.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const exec = promisify(execFile)
const root = new URL('../../', import.meta.url).pathname

it('npm publish --dry-run passes with nothing auto-corrected and every exported file in the tarball', async () => {
  if (!existsSync(`${root}dist/index.js`)) await exec(process.execPath, ['scripts/build.mjs'], { cwd: root })
  const { stdout, stderr } = await exec('npm', ['publish', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    timeout: 120_000,
  })
  expect(stderr).not.toMatch(/auto-corrected|npm (warn|error) (?!publish This command requires you to be logged in)/)
  // npm 11 keys the report by package name; older npm answered the report itself.
  const parsed = JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>
  const report = (parsed['agent-vfs'] ?? parsed) as { name: string; files: Array<{ path: string }> }
  expect(report.name).toBe('agent-vfs')
  const files = new Set(report.files.map(f => f.path))
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
    exports: Record<string, string | Record<string, string>>
  }
  // The "agent-vfs:source" condition names this repository's sources for tsconfig and vitest; no
  // consumer asks for it, so its targets are not published (every other target is).
  const targets = Object.values(pkg.exports).flatMap(e =>
    typeof e === 'string'
      ? [e]
      : Object.entries(e)
          .filter(([condition]) => condition !== 'agent-vfs:source')
          .map(([, target]) => target),
  )
  for (const target of targets) expect(files, target).toContain(target.replace(/^\.\//, ''))
  expect(files).toContain('README.md')
}, 180_000)
