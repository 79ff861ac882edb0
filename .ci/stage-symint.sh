#!/bin/sh
# CI stage (symint): the canonical form round-trips and the rewrites are
# sound, with many cases, then a short libFuzzer run of fuzz_expr.
#
#   .ci/stage-symint.sh [BUILD]
#
# BUILD is a configured and built build directory (default: build).  Runs
# the symint Check suite with SYMCUT_CASES (default 100000; the seed is
# printed, SYMCUT_SEED repeats a run), then tests/fuzz/run-fuzz.sh for
# FUZZ_SECONDS (default 300; 0 skips it) on fuzz_expr, installing clang
# with apt when it is missing (sudo when not root).  Exits non-zero when a
# test fails or the fuzzer finds a crash, a leak or a slow input.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
build=$(cd "${1:-build}" && pwd)
cases=${SYMCUT_CASES:-100000}
secs=${FUZZ_SECONDS:-300}

echo "stage-symint: symint suite, SYMCUT_CASES=$cases"
(cd "$build" && CK_RUN_SUITE=symint SYMCUT_CASES=$cases top_srcdir="$top" \
    ./tests/check_symcut)

[ "$secs" -gt 0 ] || exit 0
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
    echo "stage-symint: installing clang"
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang
fi
echo "stage-symint: fuzz_expr for $secs s"
cd "$build" && sh "$top/tests/fuzz/run-fuzz.sh" "$secs" fuzz_expr
