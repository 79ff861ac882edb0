#!/bin/sh
# symcut CLI golden tests.
#
# Every tests/golden/<group>/NAME.cmd is one shell command line that runs
# "$SYMCUT ..." with the golden folder as the working directory.  Its
# standard output must equal NAME.out, its exit status NAME.status (0 when
# there is no such file), and, when NAME.err exists, its standard error
# must equal NAME.err.  A mismatch prints a diff; the script fails if any
# case fails.  SYMCUT_GOLDEN_GROUP=NAME runs one group only; set
# SYMCUT_GOLDEN_UPDATE=1 to rewrite the expected files of the cases that
# run (with a group, only that group's; review the diff before committing).
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
export SYMCUT
golden=$(cd "$srcdir/tests/golden" && pwd)
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
for cmd in "$golden"/${SYMCUT_GOLDEN_GROUP:-*}/*.cmd; do
    [ -e "$cmd" ] || continue
    dir=$(dirname "$cmd")
    name=${cmd%.cmd}
    rel=${name#"$golden"/}
    (cd "$dir" && sh "$cmd") >"$tmp/out" 2>"$tmp/err"
    status=$?
    want_status=0
    [ -f "$name.status" ] && want_status=$(cat "$name.status")
    if [ "${SYMCUT_GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$tmp/out" "$name.out"
        if [ "$status" != 0 ]; then echo "$status" >"$name.status"; else rm -f "$name.status"; fi
        [ -f "$name.err" ] && cp "$tmp/err" "$name.err"
    fi
    ok=1
    if ! cmp -s "$tmp/out" "$name.out"; then
        echo "FAIL $rel: standard output differs:"
        diff -u "$name.out" "$tmp/out" | head -40
        ok=0
    fi
    if [ "$status" != "$want_status" ]; then
        echo "FAIL $rel: exit status $status, expected $want_status"
        sed 's/^/  stderr: /' "$tmp/err" | head -10
        ok=0
    fi
    if [ -f "$name.err" ] && ! cmp -s "$tmp/err" "$name.err"; then
        echo "FAIL $rel: standard error differs:"
        diff -u "$name.err" "$tmp/err" | head -40
        ok=0
    fi
    if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "cli golden: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
