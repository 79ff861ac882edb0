#!/bin/sh
# bench/bench_build.sh — how the graph builders scale: `symcut random`
# (forward and joint) and `symcut joint` of a residual-MLP forward graph,
# at 1e4, 1e5 and 1e6 call nodes; prints wall and user seconds per run.
#
# usage: sh bench/bench_build.sh [SYMCUT [SIZES...]]
#   SYMCUT  the symcut binary (default ./symcut, run from the build tree)
#   SIZES   call-node counts (default 10000 100000 1000000)
# Environment: BENCH_TMP (scratch directory, default a mktemp one, removed
# at exit).  Not a test: it asserts nothing but exit statuses.  The forward
# graph is written by awk below: layers of t, mm, relu, add on one weight,
# named as PyTorch names them (mm, mm_1, ...), the worst case for the
# automatic names of the backward nodes.
set -eu
symcut=${1:-./symcut}
[ $# -gt 0 ] && shift
sizes=${*:-10000 100000 1000000}
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${BENCH_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/bench-lib.sh"

# run LABEL N CMD...: one timed run, "label n wall user" (or the failure)
run() {
    label=$1 n=$2
    shift 2
    if /usr/bin/time -f '%e %U %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
    then
        read -r wall user rss <"$tmp/time"
        printf '%-22s %8s  %8s s  %8s s  %7s MB\n' "$label" "$n" "$wall" \
            "$user" "$((rss / 1024))"
    else
        printf '%-22s %8s  failed: %s\n' "$label" "$n" \
            "$(grep -v '^Command' "$tmp/err" | head -1)"
    fi
}

printf '%-22s %8s  %10s  %10s  %10s\n' "step" "nodes" "wall" "user" "peak RSS"
for n in $sizes; do
    mlp_forward "$n" >"$tmp/fwd.txt"
    run "joint (mlp forward)" "$n" "$symcut" joint "$tmp/fwd.txt" -o "$tmp/joint.txt"
    run "random --forward" "$n" "$symcut" random --nodes "$n" --forward -o "$tmp/r.txt"
    run "random (joint)" "$n" "$symcut" random --nodes "$n" -o "$tmp/r.txt"
done
