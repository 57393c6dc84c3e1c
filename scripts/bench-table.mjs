#!/usr/bin/env node
// Rewrites the README's benchmark section from bench/results/*.json, between the markers
// <!-- bench:start --> and <!-- bench:end -->. Run by `npm run bench` after the suites.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'

const dir = new URL('../bench/results/', import.meta.url)
const readme = new URL('../README.md', import.meta.url)
const fmt = (x) => (typeof x === 'number' ? String(x) : '')
let out = ''
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const rows = JSON.parse(readFileSync(new URL(file, dir), 'utf8'))
  out += `\n**bench/results/${file}**\n\n| name | ours | baseline | ratio | unit (better) | target | baseline is |\n|---|---|---|---|---|---|---|\n`
  for (const m of rows) {
    out += `| \`${m.name}\` | ${fmt(m.ours)} | ${fmt(m.baseline)} | ${fmt(m.ratio)} | ${m.unit} (${m.better}) | ${m.target ?? ''} | ${m.baselineLabel ?? ''} |\n`
  }
}
const text = readFileSync(readme, 'utf8')
const start = text.indexOf('<!-- bench:start -->')
const end = text.indexOf('<!-- bench:end -->')
if (start < 0 || end < start) throw new Error('README.md has no <!-- bench:start --> … <!-- bench:end --> section')
writeFileSync(readme, text.slice(0, start) + '<!-- bench:start -->\n' + out + '\n' + text.slice(end))
console.log('README benchmark tables updated')
