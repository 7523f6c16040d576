#!/bin/sh
# Interleaved before/after pairs of bench/ingest's 8-connection closed loop (and, with PAUSE_MS, the
# paced load), each run with its own parse-and-discard ceiling. The "before" side is another built
# checkout (git worktree add <dir> <commit>, node_modules linked, npm run build there).
#   sh bench/ingest/before-after.sh <before-checkout> [pairs=3] [seconds=15]
#   PAUSE_MS=1000 sh bench/ingest/before-after.sh <before-checkout> 3 30
# Prints one line per run; the JSON of each run is in bench/results/ingest-<date>.json.
set -e
before=$1
pairs=${2:-3}
seconds=${3:-15}
pause=${PAUSE_MS:-0}
here=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "$before" ] || { echo "usage: sh bench/ingest/before-after.sh <before-checkout> [pairs] [seconds]" >&2; exit 2; }
run() {
  node "$here/dist/bench/ingest/run.js" --runs 1 --seconds "$seconds" --sustained-seconds 0 --current-only --pause-ms "$pause" "$@" | grep '  run 1'
}
i=1
while [ "$i" -le "$pairs" ]; do
  # Alternate which side goes first from pair to pair.
  if [ $((i % 2)) -eq 1 ]; then
    echo "pair $i before: $(run --server-dir "$before")"
    echo "pair $i after:  $(run)"
  else
    echo "pair $i after:  $(run)"
    echo "pair $i before: $(run --server-dir "$before")"
  fi
  i=$((i + 1))
done
