#!/bin/sh
# Builds an older spelbord's Gomoku bot (by default commit ce8d8fe, the Hard that issue #32
# was filed against) as a Gomocup engine, with today's brain (crates/spelbord-bots/src/brain.rs)
# added to it as an example binary, and writes an arena configuration that seats it as
# engine:old and today's `spelbord gomocup` as engine:new, both told 230 ms a move (the brain
# keeps 30 back: both think 200 ms). docs/bots/gomoku.md, "Where Hard stands", was measured so.
#
#   benches/outside-gomoku/build-old-hard.sh OUT [COMMIT]
#   cargo build --release
#   APP_CONFIG_DIR=OUT target/release/spelbord arena --game gomoku --a engine:new \
#       --b engine:old --games 80 --seed 1
#
# OUT gets the old sources (src/), their build (target/) and local.toml. Nothing here is
# part of the server.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 OUT [COMMIT]" >&2
    exit 2
fi
repo=$(git rev-parse --show-toplevel)
commit=${2:-ce8d8fe}
mkdir -p "$1"
out=$(cd "$1" && pwd)
rm -rf "$out/src"
mkdir -p "$out/src"
git -C "$repo" archive "$commit" | tar -x -C "$out/src"
bots="$out/src/crates/spelbord-bots"

# Today's brain, and the functions it takes from engine/gomocup.rs (coordinates, cut).
cp "$repo/crates/spelbord-bots/src/brain.rs" "$bots/src/"
if [ -f "$bots/src/engine/gomocup.rs" ]; then
    sed -i 's/^mod gomocup;/pub(crate) mod gomocup;/' "$bots/src/engine/mod.rs"
    sed -i -e 's/pub(super) fn \(to_xy\|from_xy\)/pub(crate) fn \1/' \
        -e 's/^fn cut/pub(crate) fn cut/' "$bots/src/engine/gomocup.rs"
else
    {
        echo "//! What the brain takes from today's engine/gomocup.rs."
        echo "pub(crate) mod gomocup {"
        echo "    use spelbord_games::gomoku::Square;"
        awk '/^\/\/\/ Our square in piskvork/ { on = 1 } /^#\[cfg\(test\)\]/ { on = 0 } on' \
            "$repo/crates/spelbord-bots/src/engine/gomocup.rs"
        echo "}"
    } > "$bots/src/engine.rs"
    sed -i 's/^pub mod arena;$/pub mod arena;\nmod engine;/' "$bots/src/lib.rs"
fi
# A commit that has the brain already (since 1b0de7c) keeps its own module line.
grep -q '^pub mod brain;' "$bots/src/lib.rs" ||
    sed -i 's/^pub mod arena;$/pub mod arena;\npub mod brain;/' "$bots/src/lib.rs"

mkdir -p "$bots/examples"
cat > "$bots/examples/gomocup.rs" <<'EOF'
//! An older bot behind today's Gomocup brain: `gomocup [STRENGTH]` on stdin and stdout.
use spelbord_bots::Strength;

fn main() {
    let strength = std::env::args().nth(1).and_then(|s| Strength::from_id(&s)).unwrap_or(Strength::Hard);
    let _ = spelbord_bots::brain::run(strength, std::io::stdin().lock(), std::io::stdout().lock());
}
EOF
(cd "$out/src" && CARGO_TARGET_DIR="$out/target" nice -n 19 \
    cargo build --quiet --release -p spelbord-bots --example gomocup)

cat > "$out/local.toml" <<EOF
# Written by benches/outside-gomoku/build-old-hard.sh: commit $commit's bot as engine:old,
# today's build (cargo build --release) as engine:new.
[bots]
hard_ms = 200

[bots.engines.old]
game = "gomoku"
protocol = "gomocup"
command = ["$out/target/release/examples/gomocup", "hard"]
move_ms = 230
name = "Hard of $commit"
memory_mb = 2048
cpu_seconds = 0

[bots.engines.new]
game = "gomoku"
protocol = "gomocup"
command = ["$repo/target/release/spelbord", "gomocup", "--strength", "hard"]
move_ms = 230
name = "Hard of today"
memory_mb = 2048
cpu_seconds = 0
EOF
echo "built $out/target/release/examples/gomocup; config $out/local.toml"
