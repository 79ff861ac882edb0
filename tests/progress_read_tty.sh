#!/bin/sh
# The reader's and the partition's progress through the CLI: `symcut
# partition --progress` on a joint text of a few hundred KiB (made with
# `symcut random`) with standard error on a pseudo-terminal (Python's pty
# module) draws "\rsymcut: reading the graph: N%" and "\rsymcut:
# partitioning the joint graph: N%" in place and erases the line; in a
# pipe without --progress standard error stays empty, and with it the
# line form shows both phases from 0% to 100%, in order; standard output
# (the report) is the same in every case.
#
# Run by make check (top_srcdir, top_builddir set); exits 0 when every
# case passed, 1 otherwise, 77 (skipped) without python3.  Writes only in
# its own temporary directory.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
py=${SYMCUT_PYTHON3:-python3}
"$py" -c 'import pty, os' 2>/dev/null || { echo "no python3: skipped"; exit 77; }

t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# on_tty OUT ARGS...: symcut ARGS with standard error on a new
# pseudo-terminal, standard output into OUT.stdout, what the terminal got
# into OUT; the exit status is symcut's (tests/on-tty.py).
on_tty() {
    out=$1
    shift
    "$py" "$srcdir/tests/on-tty.py" "$out" "$SYMCUT" "$@"
}

"$SYMCUT" random --seed 7 --nodes 3000 -o "$t/joint.txt" ||
    { echo "FAIL: symcut random exited $?"; exit 1; }
size=$(wc -c <"$t/joint.txt")
[ "$size" -gt 262144 ] || bad "the joint text is only $size bytes"

# a pipe, no --progress: nothing on standard error
"$SYMCUT" partition --no-timings "$t/joint.txt" >"$t/plain.txt" \
    2>"$t/plain.err" || bad "partition in a pipe exited $?"
[ -s "$t/plain.err" ] && bad "progress in a pipe: $(head -3 "$t/plain.err")"

# a pipe, --progress: the line form, both phases, 0% .. 100% in order
"$SYMCUT" partition --progress --no-timings "$t/joint.txt" \
    >"$t/lines.txt" 2>"$t/lines.err" || bad "partition --progress exited $?"
for phase in "reading the graph" "partitioning the joint graph"; do
    grep -qx "symcut: $phase: 0%" "$t/lines.err" ||
        bad "no '$phase: 0%' line: $(head -5 "$t/lines.err")"
    grep -qx "symcut: $phase: 100%" "$t/lines.err" ||
        bad "no '$phase: 100%' line: $(tail -5 "$t/lines.err")"
done
# reading comes before partitioning, and reports along the way (the text
# is several 64 KiB steps long)
first_part=$(grep -n 'partitioning the joint graph' "$t/lines.err" | head -1 | cut -d: -f1)
last_read=$(grep -n 'reading the graph' "$t/lines.err" | tail -1 | cut -d: -f1)
[ -n "$first_part" ] && [ -n "$last_read" ] && [ "$last_read" -lt "$first_part" ] ||
    bad "the phases are out of order: $(cat "$t/lines.err")"
[ "$(grep -c 'reading the graph: [1-9]' "$t/lines.err")" -ge 3 ] ||
    bad "reading reported no intermediate steps: $(cat "$t/lines.err")"
cmp -s "$t/lines.txt" "$t/plain.txt" || bad "the report differs with --progress"

# a terminal: the line drawn in place for both phases, erased at the end
on_tty "$t/tty" partition --progress --no-timings "$t/joint.txt" ||
    bad "partition on a tty exited $?"
grep -q "$(printf '\rsymcut: reading the graph: ')" "$t/tty" ||
    bad "no reading line on the terminal: $(od -c "$t/tty" | head -5)"
grep -q "$(printf '\rsymcut: partitioning the joint graph: ')" "$t/tty" ||
    bad "no partitioning line on the terminal: $(od -c "$t/tty" | head -5)"
[ "$(tr -cd '\n' <"$t/tty" | wc -c)" -eq 0 ] ||
    bad "the progress line left whole lines: $(od -c "$t/tty" | head -5)"
[ "$(tail -c 4 "$t/tty" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
    bad "the progress line is not erased at the end: $(tail -c 8 "$t/tty" | od -c)"
cmp -s "$t/tty.stdout" "$t/plain.txt" ||
    bad "the report differs with a progress line"

# a terminal, -q: nothing
on_tty "$t/quiet" partition --progress -q --no-timings "$t/joint.txt" ||
    bad "partition -q on a tty exited $?"
[ -s "$t/quiet" ] && bad "-q printed: $(od -c "$t/quiet" | head -3)"

[ $fail = 0 ] && echo "reading and partition progress: ok"
exit $fail
