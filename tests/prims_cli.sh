#!/bin/sh
# symcut CLI test — the prims graphs torch 2.13 traced
# (tests/data/ops-prims/, tools/meta/gen_prims_data.py): `symcut run CASE.txt
# --inputs CASE.data --expect CASE.data --rtol 0 --atol 0` must pass (torch's
# outputs bit for bit) for every case, and fail with status 3 when one
# expected output is altered.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$builddir/symcut
data=$srcdir/tests/data/ops-prims
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
for txt in "$data"/*.txt; do
    name=$(basename "$txt" .txt)
    if "$SYMCUT" run "$txt" --inputs "$data/$name.data" \
        --expect "$data/$name.data" --rtol 0 --atol 0 \
        >"$tmp/out" 2>"$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: symcut run --expect exited $?"
        sed 's/^/    /' "$tmp/err"
        fail=$((fail + 1))
    fi
done

# a wrong expectation is caught: out_0 of the sum case replaced by out_1
mkdir "$tmp/bad"
cp "$data"/sum.data/*.npy "$tmp/bad/"
cp "$data/sum.data/out_1.npy" "$tmp/bad/out_0.npy"
"$SYMCUT" run "$data/sum.txt" --inputs "$data/sum.data" --expect "$tmp/bad" \
    --rtol 0 --atol 0 >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" = 3 ]; then
    pass=$((pass + 1))
else
    echo "FAIL altered expectation: exit status $status, want 3"
    fail=$((fail + 1))
fi
echo "prims CLI: $pass passed, $fail failed"
[ "$fail" = 0 ]
