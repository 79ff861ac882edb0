#!/bin/sh
# symcut — the torch 2.13 model zoo (examples/zoo/, doc/zoo.md) through the
# built symcut, stage by stage, against the committed expected outcomes.
#
# For every graph text of the zoo:
#   joint/forward/backward .txt: read (symcut graph), reprint (print, read
#     the print, print again: identical), shapes (read with no unknown op:
#     every node checked by its shape rule);
#   joints also: run (symcut run --inputs NAME.data; random models, which
#     have no data: on random inputs), expect (symcut run --inputs NAME.data
#     --expect NAME.data --rtol 1e-4: the outputs agree with PyTorch's),
#     validate (symcut validate prints PASS);
#   a dynamic model's NAME.hints (its symbols' trace-time values) is passed
#   as --hint to graph and validate;
#   .torch_logs.txt and .trace.log (several graphs in one file): read (the
#     listing) and read-N (symcut graph FILE --graph N) for N = 0, 1, 2.
# tests/zoo-expected.txt has one row per (graph, stage): GRAPH STAGE
# pass|fail REASON.  Any outcome that differs from its row fails the test,
# in either direction (a known failure that now passes too: update the
# list), and so does a row without a case or a case without a row.
#
#   sh tests/zoo.sh [--update]    (top_srcdir, top_builddir from make check)
#
# --update rewrites tests/zoo-expected.txt from the current outcomes (the
# reason of a failure is the first line symcut printed).  ZOO_ONLY=GLOB
# restricts the run to the graphs matching GLOB (no --update then).
# Never needs torch.
set -u
LC_ALL=C
export LC_ALL
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
zoo=$(cd "$srcdir/examples/zoo" && pwd) || exit 99
expected=$(cd "$srcdir/tests" && pwd)/zoo-expected.txt
update=0
[ "${1:-}" = --update ] && update=1
[ -x "$SYMCUT" ] || { echo "zoo: no $SYMCUT (build first)"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results
: >"$results"

# One line of what a failing command said: its first non-empty stderr
# line, else stdout's; the temporary folder's name taken out.
reason() {
    r=$(grep -v '^[[:space:]]*$' "$tmp/err" | head -1)
    [ -n "$r" ] || r=$(grep -v '^[[:space:]]*$' "$tmp/out" | tail -1)
    [ -n "$r" ] || r="exit status $1"
    printf '%s' "$r" | sed "s|$tmp/||g; s|$zoo/||g" | tr '\t' ' ' | cut -c1-200
}

# record GRAPH STAGE STATUS: STATUS 0 is pass.
record() {
    if [ "$3" = 0 ]; then
        printf '%s %s pass\n' "$1" "$2" >>"$results"
    else
        printf '%s %s fail %s\n' "$1" "$2" "$(reason "$3")" >>"$results"
    fi
}

sc() { "$SYMCUT" "$@" >"$tmp/out" 2>"$tmp/err"; }

for f in "$zoo"/*.joint.txt "$zoo"/*.forward.txt "$zoo"/*.backward.txt; do
    [ -e "$f" ] || continue
    g=$(basename "$f")
    case $g in ${ZOO_ONLY:-*}) ;; *) continue ;; esac
    name=${g%.*.txt}
    # The trace-time hints of a dynamic model's symbols (NAME.hints).
    set --
    [ -f "$zoo/$name.hints" ] && set -- --hint "$(cat "$zoo/$name.hints")"
    sc graph "$f" "$@"; st=$?
    record "$g" read $st
    if [ $st = 0 ] && grep -q '^unknown ops: none' "$tmp/out"; then
        record "$g" shapes 0
    elif [ $st = 0 ]; then
        grep '^unknown ops' "$tmp/out" >"$tmp/err"
        record "$g" shapes 2
    else
        record "$g" shapes $st
    fi
    st=1
    if sc graph "$f" "$@" --print -o "$tmp/p1.txt"; then
        if sc graph "$tmp/p1.txt" "$@" --print -o "$tmp/p2.txt"; then
            if cmp -s "$tmp/p1.txt" "$tmp/p2.txt"; then
                st=0
            else
                { printf 'the second print differs: '
                  diff "$tmp/p1.txt" "$tmp/p2.txt" | sed -n '2p'; } >"$tmp/err"
            fi
        else
            st=$?
            { printf 'reading the print: '; cat "$tmp/err"; } >"$tmp/err2"
            mv "$tmp/err2" "$tmp/err"
        fi
    else
        st=$?
    fi
    record "$g" reprint $st
    case $g in
    *.joint.txt)
        data=$zoo/$name.data
        if [ -f "$data/manifest.json" ]; then
            sc run "$f" --inputs "$data"
            record "$g" run $?
            sc run "$f" --inputs "$data" --expect "$data" --rtol 1e-4
            record "$g" expect $?
        else
            sc run "$f" "$@"
            record "$g" run $?
        fi
        sc validate "$f" "$@"; st=$?
        [ $st = 0 ] && ! grep -q '^PASS' "$tmp/out" && st=2
        record "$g" validate $st
        ;;
    esac
done

for f in "$zoo"/*.torch_logs.txt "$zoo"/*.trace.log; do
    [ -e "$f" ] || continue
    g=$(basename "$f")
    case $g in ${ZOO_ONLY:-*}) ;; *) continue ;; esac
    sc graph "$f"; record "$g" read $?
    for n in 0 1 2; do
        sc graph "$f" --graph $n; record "$g" read-$n $?
    done
done

# Counts per stage.
for stage in read shapes reprint run expect validate read-0 read-1 read-2; do
    awk -v s="$stage" '$2 == s { n++; if ($3 == "pass") p++ }
        END { if (n) printf "zoo: %-9s %d of %d pass\n", s, p, n }' "$results"
done

if [ $update = 1 ]; then
    [ -z "${ZOO_ONLY:-}" ] || { echo "zoo: --update with ZOO_ONLY set: refused"; exit 1; }
    {
        echo "# tests/zoo.sh: GRAPH STAGE pass|fail REASON (regenerate: sh tests/zoo.sh --update)"
        sort "$results"
    } >"$expected.tmp" && mv "$expected.tmp" "$expected"
    echo "zoo: wrote $(grep -c -v '^#' "$expected") rows to $expected"
    exit 0
fi

[ -f "$expected" ] || { echo "zoo: no $expected (run with --update)"; exit 1; }
# Compare outcomes only (the reason is a note for readers).
grep -v '^#' "$expected" | awk '{ print $1, $2, $3 }' | sort >"$tmp/want"
awk '{ print $1, $2, $3 }' "$results" | sort >"$tmp/got"
if [ -n "${ZOO_ONLY:-}" ]; then
    awk '{ print $1 }' "$tmp/got" | sort -u >"$tmp/only"
    awk 'NR == FNR { keep[$1] = 1; next } keep[$1]' "$tmp/only" "$tmp/want" >"$tmp/want2"
    mv "$tmp/want2" "$tmp/want"
fi
bad=0
awk '{ print $1 "|" $2, $3 }' "$tmp/want" | sort >"$tmp/w"
awk '{ print $1 "|" $2, $3 }' "$tmp/got" | sort >"$tmp/g"
join -a1 -a2 -e none -o 0,1.2,2.2 "$tmp/w" "$tmp/g" >"$tmp/j"
while read -r key want got; do
    [ "$want" = "$got" ] && continue
    bad=$((bad + 1))
    k=$(printf '%s' "$key" | tr '|' ' ')
    if [ "$want" = none ]; then
        echo "zoo: $k: $got, but not in tests/zoo-expected.txt"
    elif [ "$got" = none ]; then
        echo "zoo: $k: expected $want, but there is no such case"
    else
        why=$(grep -F "$k " "$results" | head -1 | cut -d' ' -f4-)
        echo "zoo: $k: expected $want, got $got${why:+ ($why)}"
    fi
done <"$tmp/j"
if [ $bad != 0 ]; then
    echo "zoo: $bad outcome(s) differ from tests/zoo-expected.txt"
    echo "zoo: (if intended: sh tests/zoo.sh --update, review the diff, commit)"
    exit 1
fi
echo "zoo: $(wc -l <"$tmp/got") outcomes as expected"
