// The Worker's static assets are the built demo (wrangler.toml `[assets] directory = "dist-demo"`).
// wrangler refuses to start or deploy when that folder is missing, as it is on a fresh clone before
// `npm run build:demo`: wrangler runs this first (its `[build] command`), so the folder always exists.
import { existsSync, mkdirSync } from 'node:fs'

const dir = new URL('../dist-demo/', import.meta.url)
mkdirSync(dir, { recursive: true })
if (!existsSync(new URL('index.html', dir)))
  console.warn('dist-demo/ holds no demo yet: `npm run build:demo` builds it, and the Worker serves it from then on')
