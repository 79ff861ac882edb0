#!/bin/sh
# symcut's progress line on a terminal: standard error on a pseudo-terminal
# (Python's pty module) gets "\rsymcut: PHASE: N%\033[K" lines, erased at
# the end, with --progress; nothing with --no-progress or -q; and
# standard output stays the graph whatever standard error is.  The pipe
# cases (no progress unless --progress, the line form) are golden cases
# of tests/golden/verbosity.
#
# Run by make check (top_srcdir, top_builddir set); exits 0 when every
# case passed, 1 otherwise, 77 (skipped) without python3.  Writes only in
# its own temporary directory.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
ex=$(cd "$srcdir/examples" && pwd)
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

"$SYMCUT" joint "$ex/mlp_gelu.forward.txt" >"$t/plain.txt" || bad "plain joint exited $?"

# --progress on a terminal: the line drawn in place, erased at the end
on_tty "$t/tty" joint --progress "$ex/mlp_gelu.forward.txt" ||
    bad "joint --progress on a tty exited $?"
grep -q "$(printf '\rsymcut: building the joint graph: 0%%')" "$t/tty" ||
    bad "no progress line on the terminal: $(od -c "$t/tty" | head -5)"
# nothing but the redrawn line: no newline on the terminal
[ "$(tr -cd '\n' <"$t/tty" | wc -c)" -eq 0 ] ||
    bad "the progress line left whole lines: $(od -c "$t/tty" | head -5)"
# the last thing written erases the line
[ "$(tail -c 4 "$t/tty" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
    bad "the progress line is not erased at the end: $(tail -c 8 "$t/tty" | od -c)"
cmp -s "$t/tty.stdout" "$t/plain.txt" ||
    bad "standard output differs with a progress line"

# --no-progress (after --progress: the last one wins) and -q: nothing
on_tty "$t/none" joint --progress --no-progress "$ex/mlp_gelu.forward.txt" ||
    bad "joint --no-progress on a tty exited $?"
[ -s "$t/none" ] && bad "--no-progress printed: $(od -c "$t/none" | head -3)"
on_tty "$t/quiet" --progress joint -q "$ex/mlp_gelu.forward.txt" ||
    bad "joint -q on a tty exited $?"
[ -s "$t/quiet" ] && bad "-q printed: $(od -c "$t/quiet" | head -3)"

# an error erases the line before its message, which ends in a newline
on_tty "$t/err" joint --progress "$t/missing.txt"
[ $? -eq 2 ] || bad "missing file: not exit 2"
grep -q "cannot open" "$t/err" || bad "no error message: $(od -c "$t/err" | head -3)"

# gradcheck on a terminal: the streamed primal lines on standard output,
# the progress line on standard error
on_tty "$t/gc" gradcheck --progress --max-per-input 8 "$ex/mlp_gelu.joint.txt" ||
    bad "gradcheck on a tty exited $?"
grep -q "$(printf '\rsymcut: checking gradients: ')" "$t/gc" ||
    bad "gradcheck: no progress line"
grep -q '^PASS$' "$t/gc.stdout" || bad "gradcheck: no PASS line"

[ $fail = 0 ] && echo "progress on a terminal: ok"
exit $fail
