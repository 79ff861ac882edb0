#!/bin/sh
# bench/bench_builders.sh — the graph builders at scale, the rows
# bench/bench_build.sh and bench/bench_scale.sh do not have: `symcut
# joint` and `symcut partition --forward` of a forward graph with
# symbolic sizes (a residual MLP on a batch s0 whose layers flatten to
# [16*s0] and back, so the backward materializes sym_size nodes) and
# `symcut partition --fw --bw` of that joint, `symcut
# random --forward` (the draw alone, static and --symbolic), and the cost
# of --progress (the same joint with the line form of the progress
# reports into a file).  Prints wall, user and system seconds and peak
# RSS per run, then the read and write rates of the symbolic joints
# (bench/bench_scale, when built beside SYMCUT).
#
# usage: sh bench/bench_builders.sh [SYMCUT [SIZES...]]
#   SYMCUT  the symcut binary (default ./symcut, run from the build tree)
#   SIZES   forward call-node counts (default 10000 100000 1000000)
# Environment: BENCH_TMP (scratch directory, default a mktemp one, removed
# at exit).  Not a test: it asserts nothing but exit statuses.  On a
# loaded machine compare the user and system seconds: wall time includes
# waiting for a core.
set -eu
symcut=${1:-./symcut}
joints=
[ $# -gt 0 ] && shift
sizes=${*:-10000 100000 1000000}
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${BENCH_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/bench-lib.sh"

# The symbolic forward graph, six call nodes per layer: t, mm, relu,
# view to [16*s0], view back to [s0, 16], add (the names as PyTorch's,
# the second view's made distinct).
mlp_forward_sym() { # $1: call nodes (a multiple of 6 is kept)
    awk -v n="$1" 'BEGIN {
        q = "\""; sx = q "f32[s0, 16][16, 1]cpu" q
        sw = q "f32[16, 16][16, 1]cpu" q
        st = q "f32[16, 16][1, 16]cpu" q; sf = q "f32[16*s0][1]cpu" q
        print "# symcut: hint s0=8"
        print "class forward_fn(torch.nn.Module):"
        print "    def forward(self, primals):"
        print "        arg0_1: " sx "; arg1_1: " sw "; "
        print "    "
        print "        arg0_1, arg1_1, = fx_pytree.tree_flatten_spec([primals], self._in_spec)"
        x = "arg0_1"
        for (i = 0; i < int(n / 6); i++) {
            s = i ? "_" i : ""
            b = "back_" i
            print "        t" s ": " st " = torch.ops.aten.t.default(arg1_1)"
            print "        mm" s ": " sx " = torch.ops.aten.mm.default(" x ", t" s ")"
            print "        relu" s ": " sx " = torch.ops.aten.relu.default(mm" s ")"
            print "        view" s ": " sf " = torch.ops.aten.view.default(relu" s ", [-1])"
            print "        " b ": " sx " = torch.ops.aten.view.default(view" s ", [-1, 16])"
            print "        add" s ": " sx " = torch.ops.aten.add.Tensor(" b ", " x ")"
            x = "add" s
        }
        print "        return pytree.tree_unflatten([" x "], self._out_spec)"
    }'
}

# run LABEL N CMD...: one timed run, "label n wall user sys rss"
run() {
    label=$1 n=$2
    shift 2
    if /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
    then
        read -r wall user sys rss <"$tmp/time"
        printf '%-28s %8s  %7s s  %7s s  %7s s  %6s MB\n' "$label" "$n" \
            "$wall" "$user" "$sys" "$((rss / 1024))"
    else
        printf '%-28s %8s  failed: %s\n' "$label" "$n" \
            "$(grep -v '^Command' "$tmp/err" | head -1)"
    fi
}

printf '%-28s %8s  %9s  %9s  %9s  %9s\n' "command" "fwd nodes" "wall" \
    "user" "sys" "peak RSS"
for n in $sizes; do
    mlp_forward_sym "$n" >"$tmp/sym$n.txt"
    mlp_forward "$n" >"$tmp/mlp$n.txt"
    run "joint (symbolic mlp)" "$n" "$symcut" joint "$tmp/sym$n.txt" \
        -o "$tmp/symjoint$n.txt"
    run "partition --fw --bw (sym)" "$n" "$symcut" partition \
        "$tmp/symjoint$n.txt" --fw "$tmp/fw.txt" --bw "$tmp/bw.txt" \
        -o "$tmp/report.txt"
    run "partition --forward (sym)" "$n" "$symcut" partition --forward \
        "$tmp/sym$n.txt" --fw "$tmp/fw.txt" --bw "$tmp/bw.txt" \
        -o "$tmp/report.txt"
    run "joint (mlp)" "$n" "$symcut" joint "$tmp/mlp$n.txt" \
        -o "$tmp/joint.txt"
    run "joint --progress (mlp)" "$n" "$symcut" joint --progress \
        "$tmp/mlp$n.txt" -o "$tmp/joint.txt"
    run "random --forward" "$n" "$symcut" random --forward --nodes "$n" \
        -o "$tmp/random.txt"
    run "random --forward --symbolic" "$n" "$symcut" random --forward \
        --symbolic --nodes "$n" -o "$tmp/random.txt"
    run "random (joint)" "$n" "$symcut" random --nodes "$n" \
        -o "$tmp/random.txt"
    rm -f "$tmp/sym$n.txt" "$tmp/mlp$n.txt"
    joints="$joints $tmp/symjoint$n.txt"
done
# the reader's and the writer's rates on the symbolic joints, when
# bench/bench_scale is built beside symcut (`make bench`)
scale=$(dirname "$symcut")/bench/bench_scale
if [ -x "$scale" ]; then
    echo
    # shellcheck disable=SC2086
    "$scale" $joints
fi
