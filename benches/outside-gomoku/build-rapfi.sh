#!/bin/sh
# Builds Rapfi (https://github.com/dhbloo/rapfi, GPL-3.0) as the outside free-style
# Gomocup engine that docs/bots/gomoku.md measures our Gomoku bot against: its classical
# evaluation (no neural network), one thread, and writes an arena configuration for it.
#
#   benches/outside-gomoku/build-rapfi.sh RAPFI_SOURCE NETWORKS_SOURCE OUT
#
# RAPFI_SOURCE is a checkout of dhbloo/rapfi, NETWORKS_SOURCE one of dhbloo/rapfi-networks
# (for classical/model220723.bin and config-example/config.toml); OUT is made and gets
# the engine, its config.toml and local.toml. Needs cmake and g++. Then:
#
#   APP_CONFIG_DIR=OUT target/release/spelbord arena --game gomoku --a hard \
#       --b engine:rapfi200 --games 20 --moves
#
# Nothing here is part of the server; the engine is only run by `spelbord arena`.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 RAPFI_SOURCE NETWORKS_SOURCE OUT" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
networks=$(cd "$2" && pwd)
mkdir -p "$3"
out=$(cd "$3" && pwd)

# The single-threaded build: the threaded one may drop a command sent while it is still
# marked as thinking just after its move (seen with INFO timeout_turn).
mkdir -p "$out/build"
(cd "$out/build" && nice -n 19 cmake "$src/Rapfi" -DCMAKE_BUILD_TYPE=Release \
    -DNO_MULTI_THREADING=ON -DNO_COMMAND_MODULES=ON -DUSE_SSE=ON -DUSE_AVX2=ON \
    -DUSE_BMI2=ON -DUSE_AVX512=OFF -DUSE_VNNI=OFF >/dev/null &&
    nice -n 19 cmake --build . -j 1 >/dev/null)
cp "$out/build/pbrain-rapfi" "$networks/classical/model220723.bin" "$out/"

# The example configuration with the classical model and without the neural evaluator
# (the [model.evaluator] tables, up to [search]). Stock time reserve (30 ms a move).
awk '
    /^\[model\.evaluator\]/ || /^\[\[model\.evaluator\./ { skip = 1; next }
    /^\[/ { skip = 0 }
    !skip
' "$networks/config-example/config.toml" |
    sed 's/^binary_file = .*/binary_file = "model220723.bin"/' >"$out/config.toml"
grep -q '^default_thread_num = 1' "$out/config.toml"

# This build reads config.toml from its working directory and ignores its arguments.
cat >"$out/run-rapfi.sh" <<RUN
#!/bin/sh
cd "$out" || exit 1
exec ./pbrain-rapfi
RUN
chmod +x "$out/run-rapfi.sh"

for ms in 35 200; do
    cat <<TOML
[bots.engines.rapfi$ms]
game = "gomoku"
protocol = "gomocup"
command = ["$out/run-rapfi.sh"]
move_ms = $ms
name = "Rapfi classical ${ms} ms"
processes = 1
margin_ms = 500
start_ms = 5000
memory_mb = 1024

TOML
done >"$out/local.toml"
echo "built: $out (config for spelbord arena: APP_CONFIG_DIR=$out)"
