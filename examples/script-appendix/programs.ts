/**
 * The run_js programs the scripted model writes for the appendix task, as source text. Each runs in
 * QuickJS with the workspace API (`vfs.read/list/write/exists`) and returns a small summary.
 */

/** Reads characters.md, the episode files and their numbers into /work/cast.json. */
export const SURVEY = `
const cast = (await vfs.read('/context/characters.md')).split('\\n')
  .filter((l) => l.startsWith('- '))
  .map((l) => {
    const i = l.indexOf(':')
    const name = (i < 0 ? l.slice(2) : l.slice(2, i)).trim()
    const aliases = i < 0 ? [] : l.slice(i + 1).split(',').map((a) => a.trim()).filter(Boolean)
    return { name, aliases }
  })
const files = (await vfs.list('/context/episodes')).filter((n) => n.endsWith('.fountain')).sort()
// Episode numbers come from each file's heading, not its name.
const numbers = {}
for (const f of files) {
  const head = /^# Episode (\\d+):/.exec(await vfs.read('/context/episodes/' + f))
  if (head) numbers[f] = Number(head[1])
  else console.log('no "# Episode N:" heading in ' + f)
}
await vfs.write('/work/cast.json', JSON.stringify({ cast, files, numbers }, null, 1))
return { characters: cast.length, episodes: files.length }`

/**
 * Parses episode files into /work/extract.json (merged with what is there): per episode its number,
 * title, scenes (location, time, speakers) and the capitalised words of action lines.
 * `selection` is a JavaScript expression over `files` (names) and `numbers` (name → episode number)
 * choosing which files to read.
 */
export function extract(selection: string): string {
  return `
const { files, numbers } = JSON.parse(await vfs.read('/work/cast.json'))
const out = (await vfs.exists('/work/extract.json')) ? JSON.parse(await vfs.read('/work/extract.json')) : { episodes: {} }
const chosen = ${selection}
for (const file of chosen) {
  const lines = (await vfs.read('/context/episodes/' + file)).split('\\n')
  const head = /^# Episode (\\d+): (.*)$/.exec(lines[0])
  if (!head) { console.log('no episode heading in ' + file); continue }
  const ep = { file, number: Number(head[1]), title: head[2], scenes: [], caps: [] }
  let scene = null
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]
    if (line.trim() === '') continue
    const h = /^(INT|EXT)\\. (.+) - (DAY|NIGHT)$/.exec(line)
    if (h) { scene = { location: h[2], time: h[3], speakers: [] }; ep.scenes.push(scene); continue }
    const next = lines[i + 1] || ''
    if (/^[A-Z][A-Z .'#-]*[A-Z.](?: \\((?:V\\.O\\.|O\\.S\\.|CONT'D)\\))?$/.test(line) && next.trim() !== '') {
      if (scene) scene.speakers.push(line.replace(/ \\(.*\\)$/, ''))
      i++
      if (/^\\(.*\\)$/.test(lines[i])) i++
      continue
    }
    for (const m of line.matchAll(/\\b[A-Z][A-Z.'-]+(?: [A-Z][A-Z.'-]+)*/g)) ep.caps.push(m[0])
  }
  out.episodes[ep.number] = ep
}
await vfs.write('/work/extract.json', JSON.stringify(out))
return { extracted: chosen.length, total: Object.keys(out.episodes).length }`
}

/** Builds assets.json, coverage.json and validation.json from /work/cast.json and /work/extract.json. */
export const BUILD = `
const { cast, numbers } = JSON.parse(await vfs.read('/work/cast.json'))
const { episodes } = JSON.parse(await vfs.read('/work/extract.json'))
const canonical = new Map()
for (const c of cast) for (const n of [c.name, ...c.aliases]) canonical.set(n, c.name)
const chars = new Map(cast.map((c) => [c.name, { name: c.name, aliases: c.aliases, episodes: new Set(), lines: 0 }]))
const locations = new Map(), props = new Map(), unknown = new Map()
const add = (m, k, n) => { if (!m.has(k)) m.set(k, new Set()); m.get(k).add(n) }
for (const ep of Object.values(episodes)) {
  for (const s of ep.scenes) {
    add(locations, s.location, ep.number)
    for (const cue of s.speakers) {
      const name = canonical.get(cue)
      if (name) { chars.get(name).episodes.add(ep.number); chars.get(name).lines++ } else add(unknown, cue, ep.number)
    }
  }
  for (const words of ep.caps) {
    const w = canonical.has(words) ? words : words.replace(/\\.$/, '')
    if (!canonical.has(w)) add(props, w, ep.number)
  }
}
const list = (m) => [...m].map(([name, s]) => ({ name, episodes: [...s].sort((a, b) => a - b) })).sort((a, b) => a.name.localeCompare(b.name))
const assets = {
  characters: [...chars.values()].map((c) => ({ ...c, episodes: [...c.episodes].sort((a, b) => a - b) })),
  locations: list(locations),
  props: list(props),
}
const all = [...new Set(Object.values(numbers))].sort((a, b) => a - b)
const covered = all.filter((n) => episodes[n])
const coverage = { episodes: all.length, covered, missing: all.filter((n) => !episodes[n]) }
const real = new Set(all)
const badRefs = []
for (const kind of ['characters', 'locations', 'props']) for (const a of assets[kind]) for (const n of a.episodes) if (!real.has(n)) badRefs.push(kind + ': ' + a.name + ' -> ' + n)
const problems = [
  ...coverage.missing.map((n) => ({ severity: 'error', check: 'coverage', message: 'episode ' + n + ' was not extracted' })),
  ...badRefs.map((r) => ({ severity: 'error', check: 'references', message: 'reference to a missing episode: ' + r })),
  ...[...unknown].sort((a, b) => a[0].localeCompare(b[0])).map(([cue, s]) => ({ severity: 'warning', check: 'known-cues', message: 'cue ' + cue + ' matches no character in characters.md (episodes ' + [...s].sort((a, b) => a - b).join(', ') + ')' })),
]
const checks = ['coverage', 'references', 'known-cues'].map((id) => ({ id, pass: !problems.some((p) => p.check === id) }))
const validation = { checks, problems, pass: !problems.some((p) => p.severity === 'error') }
// Written together, so the three files land in one commit.
await Promise.all([
  vfs.write('/outputs/assets.json', JSON.stringify(assets, null, 2)),
  vfs.write('/outputs/coverage.json', JSON.stringify(coverage, null, 2)),
  vfs.write('/outputs/validation.json', JSON.stringify(validation, null, 2)),
])
return { characters: assets.characters.length, locations: assets.locations.length, props: assets.props.length, missing: coverage.missing, pass: validation.pass }`

/** Where the asking profile keeps the title the user chose (the appendix program reads it). */
export const TITLE_PATH = '/work/title.txt'

/** Writes /outputs/appendix.md from the JSON outputs, under the user's title if one was chosen. */
export const APPENDIX = `
const title = (await vfs.exists(${JSON.stringify(TITLE_PATH)})) ? (await vfs.read(${JSON.stringify(TITLE_PATH)})).trim() : ''
const assets = JSON.parse(await vfs.read('/outputs/assets.json'))
const coverage = JSON.parse(await vfs.read('/outputs/coverage.json'))
const validation = JSON.parse(await vfs.read('/outputs/validation.json'))
const eps = (xs) => xs.join(', ')
const md = ['# ' + (title || 'Production appendix'), '', 'Episodes: ' + coverage.episodes + ', covered: ' + coverage.covered.length + (coverage.missing.length ? ', missing: ' + eps(coverage.missing) : ''), '', '## Characters', '']
for (const c of assets.characters) md.push('- **' + c.name + '**' + (c.aliases.length ? ' (' + c.aliases.join(', ') + ')' : '') + ': ' + c.lines + ' lines; episodes ' + eps(c.episodes))
md.push('', '## Locations', '')
for (const l of assets.locations) md.push('- ' + l.name + ': episodes ' + eps(l.episodes))
md.push('', '## Props', '')
for (const p of assets.props) md.push('- ' + p.name + ': episodes ' + eps(p.episodes))
md.push('', '## Validation', '', validation.pass ? 'All required checks pass.' : 'Some required checks fail.', '')
for (const p of validation.problems) md.push('- ' + p.severity + ': ' + p.message)
await vfs.write('/outputs/appendix.md', md.join('\\n') + '\\n')
return { lines: md.length }`

/** The follow-up: an index of characters by location, from the earlier extraction. */
export const INDEX_BY_LOCATION = `
const { cast } = JSON.parse(await vfs.read('/work/cast.json'))
const { episodes } = JSON.parse(await vfs.read('/work/extract.json'))
const canonical = new Map()
for (const c of cast) for (const n of [c.name, ...c.aliases]) canonical.set(n, c.name)
const byLocation = new Map()
for (const ep of Object.values(episodes)) for (const s of ep.scenes) for (const cue of s.speakers) {
  const name = canonical.get(cue)
  if (!name) continue
  if (!byLocation.has(s.location)) byLocation.set(s.location, new Set())
  byLocation.get(s.location).add(name)
}
const md = ['# Characters by location', '']
for (const [loc, names] of [...byLocation].sort((a, b) => a[0].localeCompare(b[0]))) md.push('- ' + loc + ': ' + [...names].sort().join(', '))
await vfs.write('/outputs/characters-by-location.md', md.join('\\n') + '\\n')
return { locations: byLocation.size }`
