import { createRunJs, type QuickJsEngine, type RunJsTool, type RunVfs } from '../../src/index.js'
import { scriptedModel, type PolicyRule, type RunJsSlotPolicy } from '../../src/agent/index.js'
import type { AgentProfile } from '../../src/session/index.js'

/**
 * Profiles for run_js's reach through a session host (Node's and the Worker's): imports of a
 * library an earlier execution wrote, and a fetch of a new host that the policy routes to an approval.
 * Each execution runs one program, chosen by the execution's index, then answers with text.
 */
function oneProgram(code: string) {
  return scriptedModel(v => (v.last.length === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code } }] } : { text: 'done' }))
}

/**
 * By execution: 1 writes a module (which imports a second), 2 imports it; 3–5 are hostile: outside
 * the session's roots, a bare name no import map names, `..` above the workspace root. (A session's
 * /skills is read-only to its agent, seeded by the host or uploaded by a person: an execution writes
 * its own library under /work.)
 */
export const SKILL_PROGRAMS: Record<number, string> = {
  1: `await vfs.write('/work/lib/slug.js', "import { lower } from './lower.js'\\nexport const slug = s => lower(s).replace(/[^a-z0-9]+/g, '-')")
      await vfs.write('/work/lib/lower.js', 'export const lower = s => s.toLowerCase()')
      return 'saved'`,
  2: `import { slug } from '/work/lib/slug.js'\nconst s = slug('Hello, World'); await vfs.write('/work/out.md', s); return s`,
  3: `import { x } from '/runs/other/work/x.js'\nreturn x`,
  4: `import { slug } from 'slug'\nreturn slug('x')`,
  5: `import { x } from '../../state/x.js'\nreturn x`,
}

export function skillsProfile(engine?: QuickJsEngine): AgentProfile {
  return {
    setup: ({ index }) => ({
      model: oneProgram(SKILL_PROGRAMS[index]),
      runJs: (vfs: RunVfs, tools: Record<string, RunJsTool>) =>
        createRunJs({ vfs, tools, typescript: false, ...(engine ? { engine } : {}) }),
    }),
  }
}

export const ASK_NEW_HOSTS: PolicyRule = { decision: 'ask', tools: ['fetch'], reason: 'a person approves new hosts' }

/** Writes, fetches `<origin>/data` (on no fetch rule: the policy asks), writes what it got or why it could not. */
const fetchProgram = (origin: string) => `
await vfs.write('/work/before.md', 'written before the fetch')
let outcome
try {
  const res = await external_fetch('${origin}/data')
  outcome = 'fetched ' + res.status + ' ' + JSON.parse(res.body).method
} catch (e) { outcome = e.name + ': ' + e.message }
await vfs.write('/work/outcome.md', outcome)
return outcome`

/** Fetches from `origin` (a loopback server, allowed as private) under {@link ASK_NEW_HOSTS}. */
export function fetchingProfile(origin: string, engine?: QuickJsEngine): AgentProfile {
  return {
    setup: () => ({
      model: oneProgram(fetchProgram(origin)),
      policy: [ASK_NEW_HOSTS],
      runJs: (vfs: RunVfs, tools: Record<string, RunJsTool>, { askFetch }: RunJsSlotPolicy) =>
        createRunJs({
          vfs,
          tools,
          typescript: false,
          fetch: { allow: [], allowPrivate: [new URL(origin).host], ask: askFetch },
          ...(engine ? { engine } : {}),
        }),
    }),
  }
}
