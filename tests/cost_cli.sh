#!/bin/sh
# symcut graph --cost: the per-node cost table on a bundled joint graph
# (rows checked against counts worked out by hand), -o, and its errors (a
# symbol without a hint: exit 2 naming it; --cost with --dot: exit 1).
#
# Run by make check (top_srcdir, top_builddir set); exits 0 when every
# case passed, 1 otherwise.  Writes only in its own temporary directory.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
ex=$(cd "$srcdir/examples" && pwd)

t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# mlp_gelu: addmm(primals_2 [256], primals_5 [32, 64], t [64, 256]):
# 2*32*64*256 + 32*256 = 1056768 FLOPs; reads (256 + 2048 + 16384) * 4 =
# 74752 bytes, writes 32*256*4 = 32768: 107520; cost 8*1056768 + 107520 + 1.
# gelu [32, 256]: 8192 FLOPs, 32768 + 32768 bytes, cost 131073.  A view
# (t) costs 1.
"$SYMCUT" graph "$ex/mlp_gelu.joint.txt" --cost -o "$t/cost.txt" ||
    bad "--cost exited $?"
row() { awk -v n="$1" '$1 == n { print $3, $4, $5 }' "$t/cost.txt"; }
[ "$(row addmm)" = "1056768 107520 8561665" ] || bad "addmm: $(row addmm)"
[ "$(row gelu)" = "8192 65536 131073" ] || bad "gelu: $(row gelu)"
[ "$(row t)" = "0 0 1" ] || bad "t: $(row t)"
# 20 call nodes, each listed, the total their sum
[ "$(awk 'NF == 5 && $3 ~ /^[0-9]+$/' "$t/cost.txt" | wc -l)" -eq 20 ] ||
    bad "not 20 rows"
sum=$(awk 'NF == 5 && $5 ~ /^[0-9]+$/ { s += $5 } END { printf "%d", s }' \
    "$t/cost.txt")
grep -q "^total: 20 nodes that run, .* cost $sum\$" "$t/cost.txt" ||
    bad "total is not the sum $sum: $(tail -1 "$t/cost.txt")"

# a symbolic graph without a hint: exit 2, the symbol named; nothing written
"$SYMCUT" graph "$ex/mlp_gelu_dyn.joint.txt" --cost -o "$t/dyn.txt" \
    2>"$t/err.txt"
rc=$?
[ "$rc" -eq 2 ] || bad "no hint: exit $rc"
grep -q "s0" "$t/err.txt" || bad "no hint: $(cat "$t/err.txt")"
[ ! -e "$t/dyn.txt" ] || bad "no hint: output written"
# with the hint s0=32 it is mlp_gelu's batch: the same addmm row
"$SYMCUT" graph "$ex/mlp_gelu_dyn.joint.txt" --cost --hint s0=32 \
    -o "$t/dyn.txt" || bad "--hint s0=32 exited $?"
[ "$(awk '$1 == "addmm" { print $3 }' "$t/dyn.txt")" = 1056768 ] ||
    bad "dyn addmm at s0=32"

"$SYMCUT" graph "$ex/mlp_gelu.joint.txt" --cost --dot >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] || bad "--cost --dot: exit $rc"

[ "$fail" -eq 0 ] && echo "cost_cli: all cases passed"
exit "$fail"
