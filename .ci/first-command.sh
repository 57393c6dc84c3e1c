#!/usr/bin/env bash
# CI, on the clean checkout before anything is built (no dist/): the README's first command exactly as
# written, `npm run setup && npm start`. It must exit 0 and leave the appendix in out/. Prints its wall
# time and exit code; on failure the end of its output and "0 passed, 1 failed", exit 1.
set -uo pipefail
cd "$(dirname "$0")/.."
fail() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }
[ -e dist ] && fail "dist/ exists before the first command: it must run from the sources on a clean checkout"
rm -rf out .agent-vfs
start=$(date +%s.%N)
bash -c 'npm run setup && npm start' >.ci-first-command.log 2>&1
code=$?
seconds=$(node -e "console.log((Date.now() / 1000 - $start).toFixed(1))")
echo "README first command on the clean checkout (npm run setup && npm start): exit $code, ${seconds} s, node $(node --version) on PATH"
if [ "$code" -ne 0 ] || [ ! -s out/appendix.md ]; then
  tail -40 .ci-first-command.log
  fail "the README's first command failed (exit $code; out/appendix.md $([ -s out/appendix.md ] && echo written || echo missing))"
fi
grep -E '^■ |outputs copied' .ci-first-command.log
# The suite starts as before: without the job's data folder and outputs.
rm -rf out .agent-vfs
