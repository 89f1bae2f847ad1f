#!/bin/sh
# Fits the learned Gomoku evaluation (crates/spelbord-bots/src/gomoku/learned.rs) to an
# outside engine's judgement and rewrites learned/weights.rs:
#
#   benches/outside-gomoku/fit-eval.sh ENGINE_COMMAND OUT
#
# ENGINE_COMMAND is a Gomocup engine that reports its evaluation as Rapfi does (see
# build-rapfi.sh; for example OUT_OF_BUILD_RAPFI/engine/run-rapfi.sh). Six runs of
# positions.py (two at a time, the machine's two cores; about 40 minutes in all) write
# OUT/positions-*.txt, then fit.rs fits the weights (60 epochs, seconds). The figures of
# the last fit are in docs/bots/gomoku.md, "How the weights were fitted".
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 ENGINE_COMMAND OUT" >&2
    exit 2
fi
engine=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# Seeds 1 and 2: 700 games each, 12 % random moves; seeds 3 to 6: 1,000 games, 6 %.
python3 "$here/positions.py" "$engine" 50 700 1 0.12 > "$out/positions-1.txt" &
python3 "$here/positions.py" "$engine" 50 700 2 0.12 > "$out/positions-2.txt"
wait
for pair in "3 4" "5 6"; do
    set -- $pair
    python3 "$here/positions.py" "$engine" 50 1000 "$1" 0.06 > "$out/positions-$1.txt" &
    python3 "$here/positions.py" "$engine" 50 1000 "$2" 0.06 > "$out/positions-$2.txt"
    wait
done

cd "$repo"
files=""
for n in 1 2 3 4 5 6; do files="$files $out/positions-$n.txt"; done
GOMOKU_FIT="$files" \
    GOMOKU_FIT_OUT="$repo/crates/spelbord-bots/src/gomoku/learned/weights.rs" \
    cargo test -p spelbord-bots --release --lib -- --ignored --nocapture gomoku::fit
