#!/bin/sh
# bench/bench_scale.sh — the whole command at scale: reader and writer
# rates (bench/bench_scale), and the wall, user and system seconds and
# peak RSS (VmHWM, from /usr/bin/time's %M) of `symcut joint`, `symcut
# random`, `symcut graph --print` and `symcut partition --fw --bw -o` at
# about 1e4, 1e5 and 1e6 joint nodes.
#
# usage: sh bench/bench_scale.sh [BUILDDIR [SIZES...]]
#   BUILDDIR  the build tree holding symcut and bench/bench_scale
#             (default .; `make bench` builds bench/bench_scale)
#   SIZES     joint node counts (default 10000 100000 1000000)
# Environment: BENCH_TMP (scratch directory, default a mktemp one, removed
# at exit).  Not a test: it asserts nothing but exit statuses.
#
# The scale graphs: a residual-MLP stack (t, mm, relu, add per layer on
# one weight, named as PyTorch names them; its joint is `symcut joint` of
# it, three joint nodes per forward node) and `symcut random` joints
# (every op family, static and --symbolic sizes).  On a loaded machine
# the user and system seconds are the figures to compare: wall time
# includes waiting for a core.
set -eu
build=${1:-.}
[ $# -gt 0 ] && shift
sizes=${*:-10000 100000 1000000}
symcut=$build/symcut
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${BENCH_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/bench-lib.sh"

# run LABEL N CMD...: one timed run, "label n wall user sys rss"
run() {
    label=$1 n=$2
    shift 2
    if /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
    then
        read -r wall user sys rss <"$tmp/time"
        printf '%-26s %8s  %7s s  %7s s  %7s s  %6s MB\n' "$label" "$n" \
            "$wall" "$user" "$sys" "$((rss / 1024))"
    else
        printf '%-26s %8s  failed: %s\n' "$label" "$n" \
            "$(grep -v '^Command' "$tmp/err" | head -1)"
    fi
}

printf '%-26s %8s  %9s  %9s  %9s  %9s\n' "command" "nodes" "wall" "user" \
    "sys" "peak RSS"
files=
for n in $sizes; do
    mlp_forward $((n / 3)) >"$tmp/mlp$n.fwd.txt"
    run "joint (mlp forward)" "$n" "$symcut" joint "$tmp/mlp$n.fwd.txt" \
        -o "$tmp/mlp$n.joint.txt"
    run "random (joint)" "$n" "$symcut" random --nodes "$n" \
        -o "$tmp/random$n.joint.txt"
    run "random --symbolic" "$n" "$symcut" random --nodes "$n" --symbolic \
        -o "$tmp/rsym$n.joint.txt"
    run "graph --print (mlp)" "$n" "$symcut" graph --print \
        "$tmp/mlp$n.joint.txt" -o "$tmp/print.txt"
    run "partition --fw --bw (mlp)" "$n" "$symcut" partition \
        "$tmp/mlp$n.joint.txt" --fw "$tmp/fw.txt" --bw "$tmp/bw.txt" \
        -o "$tmp/report.txt"
    run "partition --forward (mlp)" "$n" "$symcut" partition --forward \
        "$tmp/mlp$n.fwd.txt" --fw "$tmp/fw.txt" --bw "$tmp/bw.txt" \
        -o "$tmp/report.txt"
    files="$files $tmp/mlp$n.joint.txt $tmp/random$n.joint.txt $tmp/rsym$n.joint.txt"
done
echo
# shellcheck disable=SC2086
"$build/bench/bench_scale" $files
