#!/usr/bin/env bash
# Throw-away PostgreSQL for tests and benchmarks.
#
#   scripts/postgres.sh start [name]   # prints PG_URL=...; writes .tmp/postgres[-name].env
#   scripts/postgres.sh stop  [name]   # stops the server and removes its data directory
#
# The cluster lives in a temp dir (initdb, trust auth, fsync off: fast, and worthless after a crash,
# which is the point), listens on 127.0.0.1 on a free port and holds one database, `vfs_test`.
# `start` is idempotent: if the named server is already up it prints the same URL again. Use a name
# (e.g. `bench`) to run a second server beside the test one. As root, the server runs as the
# `postgres` OS user (initdb refuses root) and a missing server is installed with apt-get.
set -euo pipefail

cmd=${1:-}
name=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state="$root/.tmp/postgres${name:+-$name}.env"

as_owner() { # run a command as the user that owns the cluster
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

find_bin() {
  local v
  v=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1 || true)
  if [ -n "$v" ] && [ -x "/usr/lib/postgresql/$v/bin/initdb" ]; then echo "/usr/lib/postgresql/$v/bin"; fi
}

install_server() {
  if [ "$(id -u)" != 0 ]; then
    echo "postgres.sh: no PostgreSQL server found and not root; install it: apt-get install postgresql" >&2
    exit 1
  fi
  echo "postgres.sh: installing PostgreSQL with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
}

start() {
  if [ -f "$state" ]; then
    # shellcheck disable=SC1090
    . "$state"
    if [ -n "${PG_BIN:-}" ] && as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
      echo "PG_URL=$PG_URL"
      return
    fi
    rm -rf "${PG_DIR:-/nonexistent}"
    rm -f "$state"
  fi
  local bin dir port
  bin=$(find_bin)
  if [ -z "$bin" ]; then install_server; bin=$(find_bin); fi
  [ -n "$bin" ] || { echo "postgres.sh: PostgreSQL binaries not found after install" >&2; exit 1; }
  dir=$(mktemp -d "${TMPDIR:-/tmp}/agent-vfs-pg.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  # Ask the kernel for a free port (a tiny race with other starters; pg_ctl fails loudly if it loses).
  port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
    "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  "$bin/psql" -q -X -h 127.0.0.1 -p "$port" -U postgres -d postgres -c 'CREATE DATABASE vfs_test' >/dev/null
  local url="postgres://postgres@127.0.0.1:$port/vfs_test"
  mkdir -p "$(dirname "$state")"
  printf 'PG_URL=%s\nPG_DIR=%s\nPG_BIN=%s\n' "$url" "$dir" "$bin" >"$state"
  echo "PG_URL=$url"
}

stop() {
  [ -f "$state" ] || return 0
  # shellcheck disable=SC1090
  . "$state"
  if [ -d "$PG_DIR/data" ]; then as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w stop -m immediate >/dev/null 2>&1 || true; fi
  rm -rf "$PG_DIR"
  rm -f "$state"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: scripts/postgres.sh start|stop [name]" >&2; exit 2 ;;
esac
