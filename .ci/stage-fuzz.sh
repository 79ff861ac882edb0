#!/bin/sh
# CI stage: every libFuzzer target for about a minute, on top of the
# regression corpus.
#
#   .ci/stage-fuzz.sh [BUILDDIR]
#
# Uses the configured build directory BUILDDIR (default build; configured
# here when it is not), builds the targets with `make fuzz`
# (tests/fuzz/build.sh: the library recompiled with clang,
# -fsanitize=fuzzer,address,undefined, into BUILDDIR/tests/fuzz/) and runs
# tests/fuzz/run-fuzz.sh: each target in turn, seeded with the tests'
# inputs and every file of tests/data/regress/ (the inputs that crashed a
# target before), for SYMCUT_FUZZ_SECONDS (default 60) each.  Exits
# non-zero when a target crashes, leaks, times out or runs out of memory,
# printing the offending inputs (hex, first 1 KiB) so that the failure can
# be reproduced from the CI log; a fix adds the input to
# tests/data/regress/ (doc/testing.md).  Installs clang with apt when it
# is missing (sudo when not root).  SYMCUT_FUZZ_TARGETS chooses targets
# (default: all four).  libFuzzer's random seed is fixed
# (SYMCUT_FUZZ_SEED, default 1): the stage replays the start of the same
# campaign on every run, so a clean clone's result does not depend on luck,
# and a longer run with the same seed (run-fuzz.sh, FUZZ_ARGS=-seed=1) covers
# what CI covers and more.  doc/reliability.md, "Fuzzing in CI".
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
build=${1:-build}
secs=${SYMCUT_FUZZ_SECONDS:-60}
targets=${SYMCUT_FUZZ_TARGETS:-fuzz_expr fuzz_envscript fuzz_graph_read fuzz_npy}

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
    echo "stage-fuzz: installing clang"
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang
fi

[ -x configure ] || autoreconf -fi
mkdir -p "$build"
if [ ! -f "$build/Makefile" ]; then
    (cd "$build" && "$top/configure" >configure.log 2>&1) || {
        tail -30 "$build/configure.log"
        exit 1
    }
fi
build=$(cd "$build" && pwd)
# the generated sources first (make fuzz compiles them with clang)
make -s -C "$build" -j2 all >/dev/null
make -s -C "$build" fuzz ${FUZZ_CC:+FUZZ_CC=$FUZZ_CC}

status=0
# shellcheck disable=SC2086
SYMCUT_BUILD=$build FUZZ_ARGS="-seed=${SYMCUT_FUZZ_SEED:-1} ${FUZZ_ARGS:-}" \
    sh "$top/tests/fuzz/run-fuzz.sh" "$secs" $targets ||
    status=$?
if [ "$status" != 0 ]; then
    echo "stage-fuzz: a fuzz target failed; its inputs:" >&2
    for t in $targets; do
        for f in "$build/tests/fuzz/artifacts/$t"/*; do
            [ -f "$f" ] || continue
            echo "---- $t: $f ($(wc -c <"$f") bytes)" >&2
            head -c 1024 "$f" | od -An -tx1 | head -40 >&2
        done
        grep -a -m5 'ERROR: \|SUMMARY: \|runtime error\|Assertion' \
            "$build/tests/fuzz/$t.log" 2>/dev/null | sed "s/^/    $t: /" >&2 ||
            true
    done
    exit 1
fi
echo "stage-fuzz: no crash in $secs s per target"
