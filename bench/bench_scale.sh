#!/bin/sh
# bench/bench_scale.sh — the whole command at scale: reader and writer
# rates (bench/bench_scale), and the wall, user and system seconds and
# peak RSS (VmHWM, from /usr/bin/time's %M) of `symcut joint`, `symcut
# random`, `symcut graph --print` and `symcut partition --fw --bw -o` at
# about 4e3, 5.4e4 and 1e6 joint nodes.
#
# usage: sh bench/bench_scale.sh [BUILDDIR [SIZES...]]
#   BUILDDIR  the build tree holding symcut and bench/bench_scale
#             (default .; `make bench` builds bench/bench_scale)
#   SIZES     joint node counts (default 4000 54000 1000000)
# Environment: BENCH_TMP (scratch directory, default a mktemp one, removed
# at exit).  Not a test: it asserts nothing but exit statuses.
#
# The scale graphs: a residual-MLP stack (t, mm, relu, add per layer on
# one weight, named as PyTorch names them; its joint is `symcut joint` of
# it, three joint nodes per forward node), a transformer-encoder stack
# (transformer_forward below; `symcut joint` of it, about 2.8 joint nodes
# per forward node: views, permutes, bmm, _softmax, native_layer_norm,
# addmm, with strides) and `symcut random` joints (every op family, static and --symbolic sizes).  On a loaded machine
# the user and system seconds are the figures to compare: wall time
# includes waiting for a core.
set -eu
build=${1:-.}
[ $# -gt 0 ] && shift
sizes=${*:-4000 54000 1000000}
symcut=$build/symcut
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${BENCH_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/bench-lib.sh"

# transformer_forward N: a stack of post-norm transformer encoder layers
# (as PyTorch prints nn.TransformerEncoderLayer without dropout: in
# projection mm, split into q/k/v, clone/view/transpose per head, bmm,
# _softmax, bmm, out projection addmm, residual add, native_layer_norm,
# relu MLP of two addmm, add, native_layer_norm), every layer on the same
# twelve weights, about N call nodes (46 per layer), nodes named as
# PyTorch names them (op name, then _1, _2, .. per op).
transformer_forward() {
    awk -v n="$1" '
    function nm(op,   k) { k = cnt[op]++; return k ? op "_" k : op }
    function a(sz, st) { return q "f32[" sz "][" st "]cpu" q }
    function line(v, ann, call) {
        if (ann == "") print "        " v " = " call
        else print "        " v ": " ann " = " call
    }
    BEGIN {
        q = "\""
        print "class forward_fn(torch.nn.Module):"
        print "    def forward(self, primals):"
        printf "        primals_1: %s; primals_2: %s; primals_3: %s; primals_4: %s; primals_5: %s; primals_6: %s; primals_7: %s; primals_8: %s; primals_9: %s; primals_10: %s; primals_11: %s; primals_12: %s; primals_13: %s; \n", \
            a("192, 64", "64, 1"), a("192", "1"), a("64, 64", "64, 1"), a("64", "1"), \
            a("256, 64", "64, 1"), a("256", "1"), a("64, 256", "256, 1"), a("64", "1"), \
            a("64", "1"), a("64", "1"), a("64", "1"), a("64", "1"), a("4, 16, 64", "1024, 64, 1")
        print "    "
        print "        primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9, primals_10, primals_11, primals_12, primals_13, = fx_pytree.tree_flatten_spec([primals], self._in_spec)"
        x = "primals_13"
        for (l = 0; l < int(n / 46) || l == 0; l++) {
            tr = nm("transpose"); line(tr, a("16, 4, 64", "64, 1024, 1"), "torch.ops.aten.transpose.int(" x ", 1, 0)")
            t = nm("t"); line(t, a("64, 192", "1, 64"), "torch.ops.aten.t.default(primals_1)")
            c = nm("clone"); line(c, a("16, 4, 64", "256, 64, 1"), "torch.ops.aten.clone.default(" tr ", memory_format = torch.contiguous_format)")
            u = nm("_unsafe_view"); line(u, a("64, 64", "64, 1"), "torch.ops.aten._unsafe_view.default(" c ", [64, 64])")
            m = nm("mm"); line(m, a("64, 192", "192, 1"), "torch.ops.aten.mm.default(" u ", " t ")")
            u = nm("_unsafe_view"); line(u, a("16, 4, 192", "768, 192, 1"), "torch.ops.aten._unsafe_view.default(" m ", [16, 4, 192])")
            ad = nm("add"); line(ad, a("16, 4, 192", "768, 192, 1"), "torch.ops.aten.add.Tensor(" u ", primals_2)")
            sp = nm("split"); line(sp, "", "torch.ops.aten.split.Tensor(" ad ", 64, -1)")
            for (h = 0; h < 3; h++) {
                g[h] = nm("getitem"); line(g[h], a("16, 4, 64", "768, 192, 1"), sp "[" h "]")
            }
            for (h = 0; h < 3; h++) {
                c = nm("clone"); line(c, a("16, 4, 64", "256, 64, 1"), "torch.ops.aten.clone.default(" g[h] ", memory_format = torch.contiguous_format)")
                v = nm("view"); line(v, a("16, 16, 16", "256, 16, 1"), "torch.ops.aten.view.default(" c ", [16, 16, 16])")
                hd[h] = nm("transpose"); line(hd[h], a("16, 16, 16", "16, 256, 1"), "torch.ops.aten.transpose.int(" v ", 0, 1)")
            }
            d = nm("div"); line(d, a("16, 16, 16", "16, 256, 1"), "torch.ops.aten.div.Tensor(" hd[0] ", 4.0)")
            kt = nm("transpose"); line(kt, a("16, 16, 16", "16, 1, 256"), "torch.ops.aten.transpose.int(" hd[1] ", -2, -1)")
            b = nm("bmm"); line(b, a("16, 16, 16", "256, 16, 1"), "torch.ops.aten.bmm.default(" d ", " kt ")")
            sm = nm("_softmax"); line(sm, a("16, 16, 16", "256, 16, 1"), "torch.ops.aten._softmax.default(" b ", -1, False)")
            b = nm("bmm"); line(b, a("16, 16, 16", "256, 16, 1"), "torch.ops.aten.bmm.default(" sm ", " hd[2] ")")
            tr = nm("transpose"); line(tr, a("16, 16, 16", "16, 256, 1"), "torch.ops.aten.transpose.int(" b ", 0, 1)")
            c = nm("clone"); line(c, a("16, 16, 16", "256, 16, 1"), "torch.ops.aten.clone.default(" tr ", memory_format = torch.contiguous_format)")
            v = nm("view"); line(v, a("64, 64", "64, 1"), "torch.ops.aten.view.default(" c ", [64, 64])")
            t = nm("t"); line(t, a("64, 64", "1, 64"), "torch.ops.aten.t.default(primals_3)")
            am = nm("addmm"); line(am, a("64, 64", "64, 1"), "torch.ops.aten.addmm.default(primals_4, " v ", " t ")")
            v = nm("view"); line(v, a("16, 4, 64", "256, 64, 1"), "torch.ops.aten.view.default(" am ", [16, 4, 64])")
            tr = nm("transpose"); line(tr, a("4, 16, 64", "64, 256, 1"), "torch.ops.aten.transpose.int(" v ", 1, 0)")
            ad = nm("add"); line(ad, a("4, 16, 64", "1024, 64, 1"), "torch.ops.aten.add.Tensor(" x ", " tr ")")
            ln = nm("native_layer_norm"); line(ln, "", "torch.ops.aten.native_layer_norm.default(" ad ", [64], primals_9, primals_10, 1e-05)")
            y = nm("getitem"); line(y, a("4, 16, 64", "1024, 64, 1"), ln "[0]")
            t = nm("t"); line(t, a("64, 256", "1, 64"), "torch.ops.aten.t.default(primals_5)")
            v = nm("view"); line(v, a("64, 64", "64, 1"), "torch.ops.aten.view.default(" y ", [64, 64])")
            am = nm("addmm"); line(am, a("64, 256", "256, 1"), "torch.ops.aten.addmm.default(primals_6, " v ", " t ")")
            v = nm("view"); line(v, a("4, 16, 256", "4096, 256, 1"), "torch.ops.aten.view.default(" am ", [4, 16, 256])")
            r = nm("relu"); line(r, a("4, 16, 256", "4096, 256, 1"), "torch.ops.aten.relu.default(" v ")")
            t = nm("t"); line(t, a("256, 64", "1, 256"), "torch.ops.aten.t.default(primals_7)")
            v = nm("view"); line(v, a("64, 256", "256, 1"), "torch.ops.aten.view.default(" r ", [64, 256])")
            am = nm("addmm"); line(am, a("64, 64", "64, 1"), "torch.ops.aten.addmm.default(primals_8, " v ", " t ")")
            v = nm("view"); line(v, a("4, 16, 64", "1024, 64, 1"), "torch.ops.aten.view.default(" am ", [4, 16, 64])")
            ad = nm("add"); line(ad, a("4, 16, 64", "1024, 64, 1"), "torch.ops.aten.add.Tensor(" y ", " v ")")
            ln = nm("native_layer_norm"); line(ln, "", "torch.ops.aten.native_layer_norm.default(" ad ", [64], primals_11, primals_12, 1e-05)")
            x = nm("getitem"); line(x, a("4, 16, 64", "1024, 64, 1"), ln "[0]")
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
    transformer_forward $((n * 10 / 28)) >"$tmp/tf$n.fwd.txt"
    run "joint (transformer fwd)" "$n" "$symcut" joint "$tmp/tf$n.fwd.txt" \
        -o "$tmp/tf$n.joint.txt"
    run "graph --print (tf)" "$n" "$symcut" graph --print \
        "$tmp/tf$n.joint.txt" -o "$tmp/print.txt"
    run "partition --fw --bw (tf)" "$n" "$symcut" partition \
        "$tmp/tf$n.joint.txt" --fw "$tmp/fw.txt" --bw "$tmp/bw.txt" \
        -o "$tmp/report.txt"
    files="$files $tmp/mlp$n.joint.txt $tmp/tf$n.joint.txt $tmp/random$n.joint.txt $tmp/rsym$n.joint.txt"
done
echo
# shellcheck disable=SC2086
"$build/bench/bench_scale" $files
