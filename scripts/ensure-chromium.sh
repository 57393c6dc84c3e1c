#!/usr/bin/env bash
# The browser test project drives Debian's Chromium (test tools cannot download their own browser
# here). Installs it when missing; CHROMIUM_PATH points elsewhere if you have one.
set -euo pipefail
path=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$path" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "Chromium is missing at $path. Install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH." >&2
  exit 1
fi
echo "Installing Chromium from Debian (about a minute)…" >&2
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
[ -x "$path" ] || { echo "Chromium install did not produce $path" >&2; exit 1; }
