#!/bin/sh
# symcut — run every libFuzzer target for a given time.
#
#   tests/fuzz/run-fuzz.sh [SECONDS] [TARGET...]
#
# Run from a configured build directory (or set SYMCUT_BUILD to one).  Builds
# the targets with `make fuzz` when needed, generates the seed corpora from
# the tests' data into BUILD/tests/fuzz/seeds/TARGET, then runs each target
# (default: all four, one after the other, one process each) for SECONDS
# (default 60) with the corpus kept in BUILD/tests/fuzz/corpus/TARGET and
# crashing inputs written to BUILD/tests/fuzz/artifacts/TARGET/.  After a
# crash the target is restarted until its time is used.  Prints, per target:
# runs, execs/s, coverage (edges, features, corpus size), crashes.  Exit
# status 1 when any target crashed, leaked or timed out.
#
# Environment: FUZZ_CC (clang to build with), FUZZ_ARGS (extra libFuzzer
# flags), FUZZ_RSS_MB (memory limit, default 2048), FUZZ_TIMEOUT (seconds per
# input, default 10).
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
'' | *[!0-9]*)
    echo "usage: run-fuzz.sh [SECONDS] [TARGET...]" >&2
    exit 1
    ;;
esac
targets=${*:-fuzz_expr fuzz_envscript fuzz_graph_read fuzz_npy}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${SYMCUT_BUILD:-.}
build=$(cd "$build" && pwd)
if [ ! -f "$build/Makefile" ]; then
    echo "run-fuzz.sh: $build is not a configured build directory (set SYMCUT_BUILD)" >&2
    exit 1
fi
fz=$build/tests/fuzz
if ! make -s -C "$build" fuzz ${FUZZ_CC:+FUZZ_CC=$FUZZ_CC}; then
    for t in $targets; do
        [ -x "$fz/$t" ] || exit 1
    done
    echo "run-fuzz.sh: the build failed; running the targets built before" >&2
fi

# ---- seed corpora -----------------------------------------------------------
seeds() {
    d=$fz/seeds/$1
    rm -rf "$d"
    mkdir -p "$d"
    echo "$d"
}
split() { # split DIR PREFIX: each line of stdin becomes one seed file
    awk -v d="$1" -v p="$2" '{ f = d "/" p "-" NR; printf "%s", $0 > f; close(f) }'
}

d=$(seeds fuzz_expr)
for f in "$srcdir"/tests/golden/expr/*.txt "$srcdir"/bench/exprs.txt; do
    [ -f "$f" ] || continue
    grep -v '^[[:space:]]*\(#\|$\)' "$f" | head -300 | split "$d" "$(basename "$f")"
done
for f in "$srcdir"/tests/golden/env/*.env; do
    sed -n 's/^[[:space:]]*\(guard\|int\|known\|or_false\|or_true\|oblivious\|check\|simplify\|range\|hint\)[[:space:]]\+//p' "$f" |
        split "$d" "$(basename "$f")"
done
for f in "$srcdir"/tests/data/regress/expr/*; do [ -f "$f" ] && cp "$f" "$d/"; done

d=$(seeds fuzz_envscript)
for f in "$srcdir"/tests/golden/env/*.env "$srcdir"/tests/data/regress/envscript/*; do
    [ -f "$f" ] && cp "$f" "$d/$(basename "$f")"
done

d=$(seeds fuzz_graph_read)
for f in "$srcdir"/examples/*.txt "$srcdir"/tests/data/interp/*.txt \
    "$srcdir"/tests/data/regress/graph/*; do
    [ -f "$f" ] && cp "$f" "$d/$(basename "$f")"
done
# The graphs that golden cases pipe in with printf.
for f in "$srcdir"/tests/golden/*/*.cmd; do
    k=0
    grep -o "^printf '[^']*'" "$f" 2>/dev/null | while IFS= read -r p; do
        k=$((k + 1))
        sh -c "$p" >"$d/$(basename "$(dirname "$f")")-$(basename "$f" .cmd)-$k" 2>/dev/null
    done
done

d=$(seeds fuzz_npy)
for f in "$srcdir"/tests/data/kernels/*/*.npy "$srcdir"/tests/data/regress/npy/*; do
    [ -f "$f" ] && cp "$f" "$d/$(basename "$(dirname "$f")")-$(basename "$f")"
done

# ---- runs -------------------------------------------------------------------
maxlen() {
    case $1 in
    fuzz_expr) echo 4096 ;;
    fuzz_envscript) echo 8192 ;;
    fuzz_graph_read) echo 65536 ;;
    fuzz_npy) echo 8192 ;;
    esac
}
dict() {
    case $1 in
    fuzz_expr) echo "$here/expr.dict" ;;
    fuzz_envscript) echo "$here/envscript.dict" ;;
    fuzz_graph_read) echo "$here/graph.dict" ;;
    *) echo "" ;;
    esac
}

bad=0
printf '%-16s %8s %10s %8s %8s %8s %8s %s\n' target seconds runs execs/s cov ft corpus crashes
for t in $targets; do
    if [ ! -x "$fz/$t" ]; then
        echo "run-fuzz.sh: no target $t" >&2
        bad=1
        continue
    fi
    corpus=$fz/corpus/$t
    art=$fz/artifacts/$t
    mkdir -p "$corpus" "$art"
    log=$fz/$t.log
    : >"$log"
    before=$(ls "$art" | wc -l)
    start=$(date +%s)
    runs=0
    restarts=0
    dictopt=
    [ -n "$(dict "$t")" ] && dictopt=-dict=$(dict "$t")
    while :; do
        left=$((secs - ($(date +%s) - start)))
        [ "$left" -gt 0 ] || break
        # shellcheck disable=SC2086
        "$fz/$t" -max_total_time="$left" -print_final_stats=1 \
            -max_len="$(maxlen "$t")" -timeout="${FUZZ_TIMEOUT:-10}" \
            -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -artifact_prefix="$art/" \
            $dictopt ${FUZZ_ARGS:-} "$corpus" "$fz/seeds/$t" >"$log.run" 2>&1
        r=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.run" | tail -1)
        # A crashed run prints no final stats: count its last progress line.
        [ -n "$r" ] || r=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log.run" | tail -1)
        [ -n "$r" ] || r=0
        cat "$log.run" >>"$log"
        rm -f "$log.run"
        runs=$((runs + r))
        restarts=$((restarts + 1))
        [ "$restarts" -lt 50 ] || break
        echo "---- restart ----" >>"$log"
    done
    elapsed=$(($(date +%s) - start))
    eps=0
    [ "$elapsed" -gt 0 ] && eps=$((runs / elapsed))
    last=$(grep -a -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" | tail -1)
    cov=$(echo "$last" | awk '{print $2}')
    ft=$(echo "$last" | awk '{print $4}')
    corp=$(echo "$last" | awk '{print $6}')
    crashes=$(($(ls "$art" | wc -l) - before))
    [ "$crashes" -gt 0 ] && bad=1
    printf '%-16s %8s %10s %8s %8s %8s %8s %s\n' "$t" "$elapsed" "$runs" \
        "$eps" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes"
    if [ "$crashes" -gt 0 ]; then
        ls -t "$art" | head -"$crashes" | sed "s|^|    $art/|"
        grep -a -m3 'ERROR: \|SUMMARY: \|runtime error' "$log" | sed 's/^/    /'
    fi
done
exit $bad
