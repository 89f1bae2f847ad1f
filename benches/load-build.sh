# Sourced by benches/run-load.sh and benches/run-cluster-load.sh: builds the release server
# (unless SPELBORD_BIN names one) and the load generator first, so that no compiler runs
# during a measurement, then raises this shell's descriptor limit to NOFILE (default
# 200000; the hard limit in force when it cannot be raised) for the processes it starts.
TARGET_DIR=${CARGO_TARGET_DIR:-target}
NOFILE=${NOFILE:-200000}
SPELBORD_BIN=${SPELBORD_BIN:-}
if [ -z "$SPELBORD_BIN" ]; then
    cargo build --release --bin spelbord
    SPELBORD_BIN="$TARGET_DIR/release/spelbord"
fi
cargo bench --bench loadgen --no-run
if ! ulimit -Hn "$NOFILE" 2>/dev/null; then
    echo "$(basename "$0"): cannot raise the hard descriptor limit to $NOFILE (not root?); using $(ulimit -Hn)" >&2
    NOFILE=$(ulimit -Hn)
fi
ulimit -n "$NOFILE"
