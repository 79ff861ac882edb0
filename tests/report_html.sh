#!/bin/sh
# symcut partition --format html with Graphviz installed: the page holds
# the graph and the memory/recompute frontier as inline SVG and loads nothing from outside (no src=, no
# href= but in-page anchors, no @import or url()).  Skipped (77) when
# Graphviz's dot is not on the PATH; the golden cases (tests/golden/
# report/) cover the page without it.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
command -v dot >/dev/null 2>&1 || { echo "no Graphviz dot: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # $1: what, then the command's arguments
    what=$1
    shift
    if ! "$SYMCUT" partition "$@" --format html --no-timings -o "$tmp/page.html"; then
        echo "FAIL $what: exit status $?"
        fail=1
        return
    fi
    grep -q '<svg' "$tmp/page.html" || { echo "FAIL $what: no SVG"; fail=1; }
    grep -q 'No picture' "$tmp/page.html" && { echo "FAIL $what: no picture"; fail=1; }
    # The frontier section holds its plot (the pareto command's SVG).
    sed -n '/id="frontier"/,$p' "$tmp/page.html" | grep -q '<svg' ||
        { echo "FAIL $what: no frontier plot"; fail=1; }
    if grep -Eiq '(src|href)="[a-z]+:|@import|url\(' "$tmp/page.html"; then
        echo "FAIL $what: an external resource:"
        grep -Eio '(src|href)="[a-z]+:[^"]*"|@import|url\([^)]*\)' "$tmp/page.html" | head -3
        fail=1
    fi
    [ "$(grep -c '<svg' "$tmp/page.html")" -ge 1 ] && echo "ok $what"
}
check mlp_gelu "$srcdir/examples/mlp_gelu.joint.txt"
check small_cnn-budget "$srcdir/examples/small_cnn.joint.txt" --policy exact --memory-budget 1.2MB
check lstm-around "$srcdir/examples/lstm_module.joint.txt" --around mm --depth 3
exit $fail
