#!/bin/sh
# zoo-counts.sh SYMCUT DIR: how many of the graph texts in DIR (the model
# zoo: NAME.{joint,forward,backward}.txt, NAME.torch_logs.txt,
# NAME.trace.log, NAME.hints) symcut reads, and how many re-print stably
# (printing the graph read from its own print gives the same text).  Logs
# and traces count each graph they hold (symcut graph FILE lists them).
# Prints the counts, then each failure's first error line.
set -u
symcut=$1
dir=$2
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
total=0 read=0 stable=0
: >"$tmp/fail"

one() { # FILE [--graph NAME]
    f=$1
    shift
    base=${f%%.*}
    hint=
    [ -f "$base.hints" ] && hint="--hint $(cat "$base.hints")"
    total=$((total + 1))
    # shellcheck disable=SC2086
    if "$symcut" graph --print $hint "$@" "$f" >"$tmp/a" 2>"$tmp/err"; then
        read=$((read + 1))
        if "$symcut" graph --print $hint "$tmp/a" >"$tmp/b" 2>>"$tmp/err" &&
            cmp -s "$tmp/a" "$tmp/b"; then
            stable=$((stable + 1))
        else
            echo "$(basename "$f") $*: re-print differs" >>"$tmp/fail"
        fi
    else
        echo "$(basename "$f") $*: $(head -1 "$tmp/err")" >>"$tmp/fail"
    fi
}

for f in "$dir"/*.joint.txt "$dir"/*.forward.txt "$dir"/*.backward.txt; do
    [ -e "$f" ] && one "$f"
done
for f in "$dir"/*.torch_logs.txt "$dir"/*.trace.log; do
    [ -e "$f" ] || continue
    names=$("$symcut" graph "$f" 2>/dev/null | awk 'NR > 2 { print $2 }')
    if [ -z "$names" ]; then
        one "$f"
        continue
    fi
    for n in $names; do
        one "$f" --graph "$n"
    done
done
echo "texts: $total, read: $read, re-printed stably: $stable"
cat "$tmp/fail"
