#!/usr/bin/env bash
# Runs fuzz targets one after the other, each for a bounded time, on the stable toolchain.
#   fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 seconds, every target)
# New inputs go to fuzz/corpus/TARGET (kept locally, not in git); the seeds in
# fuzz/seeds/TARGET are read, never written. A crash stops that target, is saved under
# fuzz/artifacts/TARGET/ and makes this script exit non-zero after the other targets ran.
set -uo pipefail
cd "$(dirname "$0")"

seconds="${1:-60}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list)
fi

# cargo-fuzz passes nightly-only flags (-Zsanitizer=..., -Cpasses=sancov-module); stable
# rustc accepts them with RUSTC_BOOTSTRAP=1.
export RUSTC_BOOTSTRAP=1
failed=()
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    echo "== $target: ${seconds}s"
    if ! cargo fuzz run "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -timeout=10 -print_final_stats=1; then
        failed+=("$target")
    fi
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "crashes in: ${failed[*]} (see fuzz/artifacts/)" >&2
    exit 1
fi
echo "no crash in: ${targets[*]}"
