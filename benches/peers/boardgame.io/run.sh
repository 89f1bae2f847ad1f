#!/usr/bin/env bash
# boardgame.io 0.50.2 side by side with spelbord (issue 12): installs boardgame.io into
# a scratch folder outside the repository, starts server.js there (Gomoku from memory),
# runs load.js against it, and stops the server.
#
#   benches/peers/boardgame.io/run.sh closed M [load.js options]   # e.g. closed 100 --window 30
#   benches/peers/boardgame.io/run.sh idle N [load.js options]     # e.g. idle 5000 --hold 20 --sources 4
#   benches/peers/boardgame.io/run.sh test                         # the game's node:test tests
#
# Scratch folder: ${TMPDIR:-/tmp}/spelbord-peers/boardgame.io (`npm ci` from the committed
# lock file, run again only when the lock file changed). Server port: BGIO_PORT (default
# 18700), on 127.0.0.1.
# The JSON result line goes to stdout, progress and the server's messages to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
scratch=${TMPDIR:-/tmp}/spelbord-peers/boardgame.io
port=${BGIO_PORT:-18700}

usage() {
  echo "usage: $0 closed M [options] | idle N [options] | test" >&2
  exit 2
}
mode=${1:-}
case "$mode" in
  closed | idle)
    [[ ${2:-} =~ ^[0-9]+$ ]] || usage
    count=$2
    shift 2
    ;;
  test) shift ;;
  *) usage ;;
esac

mkdir -p "$scratch"
cp "$here"/package.json "$here"/package-lock.json "$here"/gomoku.js "$here"/gomoku.test.js "$here"/server.js "$here"/load.js "$scratch"/
cd "$scratch"
if [[ ! -d node_modules/boardgame.io ]] || ! cmp -s package-lock.json .installed-package-lock.json; then
  echo "installing boardgame.io into $scratch" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json .installed-package-lock.json
fi
node -e '
  const v = (name) => require(`./node_modules/${name}/package.json`).version;
  if (v("boardgame.io") !== "0.50.2" || v("koa-compose") !== "4.1.0") {
    console.error(`wrong versions: boardgame.io ${v("boardgame.io")}, koa-compose ${v("koa-compose")}`);
    process.exit(1);
  }'

if [[ $mode == test ]]; then
  exec node --test gomoku.test.js
fi

# The load and the server each hold one descriptor per socket.
ulimit -n "$(ulimit -Hn)"

NODE_ENV=production BGIO_PORT=$port node server.js &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT

# Wait (at most 15 s) until the lobby answers.
for _ in $(seq 150); do
  if curl -sf -o /dev/null "http://127.0.0.1:$port/games/gomoku"; then
    break
  fi
  kill -0 "$server_pid" 2>/dev/null || { echo "the server exited" >&2; exit 1; }
  sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$port/games/gomoku" || { echo "the server did not answer on port $port" >&2; exit 1; }

case "$mode" in
  closed) node load.js closed --url "http://127.0.0.1:$port" --server-pid "$server_pid" --matches "$count" "$@" ;;
  idle) node load.js idle --url "http://127.0.0.1:$port" --server-pid "$server_pid" --connections "$count" "$@" ;;
esac
