#!/bin/sh
# symcut output files and standard output: how -o, --fw and --bw write
# what they are given, and that every command fails when its standard
# output cannot be written.
#
# Everything happens in a private temporary directory: FIFOs made with
# mkfifo, device nodes made with mknod (as root: a null device 1,3 and two
# full devices 1,7), symlinks to files in it and a link to /proc/self/fd/1
# (what /dev/stdout is).  No real /dev entry is ever written.
#
# The cases run once as the user running the test and, when that is root,
# once more as an unprivileged user (nobody, through setpriv or runuser);
# a half that cannot run (no root for the device nodes, no way to drop
# privileges) is skipped, saying so.
#
# Run by make check (top_srcdir, top_builddir set); exits 0 when every
# case passed, 1 otherwise, 77 when nothing could run.
set -u
srcdir=${top_srcdir:-$(dirname "$0")/..}
builddir=${top_builddir:-.}
SYMCUT=$(cd "$builddir" && pwd)/symcut
ex=$(cd "$srcdir/examples" && pwd)
fwd=$ex/mlp_gelu.forward.txt
joint=$ex/mlp_gelu.joint.txt

t=$(mktemp -d) || exit 99
trap 'rm -rf "$t"' EXIT
chmod 755 "$t"

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL [$who] $*"; fail=$((fail + 1)); }

# The device nodes: made once by root, world-writable, used by both halves.
have_dev=0
if [ "$(id -u)" = 0 ] && mknod -m 666 "$t/null" c 1 3 2>/dev/null &&
    mknod -m 666 "$t/full" c 1 7 2>/dev/null &&
    mknod -m 666 "$t/stdout-full" c 1 7 2>/dev/null; then
    have_dev=1
else
    echo "SKIP the device cases: cannot mknod (needs root)"
fi

# run_as USER CMD...: CMD as that user (the current one when USER is -).
run_as() {
    u=$1
    shift
    if [ "$u" = - ]; then
        "$@"
    elif [ -n "$drop" ]; then
        $drop sh -c 'umask 022; exec "$@"' sh "$@"
    fi
}

# The cases, in the directory $w (writable by the user $u).
cases() {
    u=$1
    w=$2
    R() { run_as "$u" "$@"; }
    R "$SYMCUT" joint "$fwd" >"$w/expect.joint" || bad "joint to stdout"
    R "$SYMCUT" partition "$joint" --no-timings >"$w/expect.report" ||
        bad "partition to stdout"

    # A new regular file gets the mode the umask gives (umask 022: 644).
    R sh -c 'umask 022; exec "$@"' sh "$SYMCUT" joint "$fwd" -o "$w/new.txt"
    if cmp -s "$w/new.txt" "$w/expect.joint" &&
        [ "$(stat -c %a "$w/new.txt")" = 644 ]; then ok; else
        bad "new file: content or mode $(stat -c %a "$w/new.txt" 2>&1) (want 644)"
    fi
    R sh -c 'umask 002; exec "$@"' sh "$SYMCUT" joint "$fwd" -o "$w/new2.txt"
    if [ "$(stat -c %a "$w/new2.txt")" = 664 ]; then ok; else
        bad "new file under umask 002: mode $(stat -c %a "$w/new2.txt")"
    fi

    # An existing regular file is replaced and keeps its mode.
    echo old >"$w/old.txt"
    chmod 640 "$w/old.txt"
    R "$SYMCUT" joint "$fwd" -o "$w/old.txt"
    if cmp -s "$w/old.txt" "$w/expect.joint" &&
        [ "$(stat -c %a "$w/old.txt")" = 640 ]; then ok; else
        bad "replaced file: content or mode $(stat -c %a "$w/old.txt")"
    fi

    # A symlink stays a link; its target (through a relative chain in
    # another directory) gets the output.
    R mkdir -p "$w/sub"
    echo old >"$w/sub/target.txt"
    ln -s target.txt "$w/sub/link1"
    ln -s sub/link1 "$w/link2"
    R "$SYMCUT" joint "$fwd" -o "$w/link2"
    if [ -L "$w/link2" ] && [ -L "$w/sub/link1" ] &&
        cmp -s "$w/sub/target.txt" "$w/expect.joint"; then ok; else
        bad "symlink chain: replaced, or the target not written"
    fi
    # A dangling link: its target is created.
    ln -s made.txt "$w/dangling"
    R "$SYMCUT" joint "$fwd" -o "$w/dangling"
    if [ -L "$w/dangling" ] && cmp -s "$w/made.txt" "$w/expect.joint"; then
        ok; else bad "dangling symlink"; fi

    # A FIFO is written through and stays a FIFO (--fw, --bw and -o).
    for opt in -o --fw --bw; do
        rm -f "$w/fifo" "$w/fifo.out"
        mkfifo "$w/fifo"
        chmod 666 "$w/fifo"
        # (a command that replaces the FIFO leaves the reader waiting on
        # it: the timeout ends it, and the case fails)
        timeout 30 cat "$w/fifo" >"$w/fifo.out" &
        reader=$!
        case $opt in
        -o) R "$SYMCUT" partition "$joint" --no-timings -o "$w/fifo"
            want=$w/expect.report ;;
        --fw) R "$SYMCUT" partition "$joint" --no-timings --fw "$w/fifo" \
                --bw "$w/bw.txt" >/dev/null
            want= ;;
        --bw) R "$SYMCUT" partition "$joint" --no-timings --bw "$w/fifo" \
                --fw "$w/fw.txt" >/dev/null
            want= ;;
        esac
        st=$?
        wait $reader
        if [ $st = 0 ] && [ -p "$w/fifo" ] && [ -s "$w/fifo.out" ] &&
            { [ -z "$want" ] || cmp -s "$w/fifo.out" "$want"; }; then ok; else
            bad "FIFO with $opt: status $st, or replaced, or not written"
        fi
        if [ -z "$want" ] && head -1 "$w/fifo.out" | grep -q '^class '; then
            ok; else [ -n "$want" ] || bad "FIFO with $opt: not a graph"; fi
    done

    # A link into /proc (what /dev/stdout is) writes to standard output.
    ln -s /proc/self/fd/1 "$w/stdout"
    R "$SYMCUT" joint "$fwd" -o "$w/stdout" | cat >"$w/stdout.out"
    if [ -L "$w/stdout" ] && cmp -s "$w/stdout.out" "$w/expect.joint"; then
        ok; else bad "-o a link to /proc/self/fd/1 (as /dev/stdout)"; fi

    # ... at the descriptor's offset: appended standard output keeps what
    # it had.
    echo first >"$w/appended"
    R "$SYMCUT" joint "$fwd" -o "$w/stdout" >>"$w/appended"
    if [ "$(head -1 "$w/appended")" = first ] &&
        tail -n +2 "$w/appended" | cmp -s - "$w/expect.joint"; then ok; else
        bad "-o a link to /proc/self/fd/1 with standard output appended"; fi

    # A directory is an error saying so, and nothing is written.
    R mkdir -p "$w/dir"
    R "$SYMCUT" joint "$fwd" -o "$w/dir" 2>"$w/err"
    st=$?
    if [ $st = 2 ] && grep -q "it is a directory" "$w/err" &&
        [ -z "$(ls "$w/dir")" ]; then ok; else
        bad "-o a directory: status $st, $(cat "$w/err")"
    fi
    # A failed run leaves a regular file as it was.
    echo keep >"$w/keep.txt"
    R "$SYMCUT" joint "$joint" -o "$w/keep.txt" 2>/dev/null
    if [ $? = 2 ] && [ "$(cat "$w/keep.txt")" = keep ]; then ok; else
        bad "failed run changed -o's file"; fi

    [ $have_dev = 1 ] || return 0
    # A null device stays a device and takes the output.
    R "$SYMCUT" joint "$fwd" -o "$t/null"
    st=$?
    if [ $st = 0 ] && [ -c "$t/null" ]; then ok; else
        bad "-o a null device: status $st, or it is no longer a device"
    fi
    # A full device: the write fails, it stays a device, and the regular
    # file of the same run is not written.
    rm -f "$w/fw-full.txt"
    R "$SYMCUT" partition "$joint" --fw "$w/fw-full.txt" --bw "$t/full" \
        -o "$w/rep-full.txt" 2>"$w/err"
    st=$?
    if [ $st = 2 ] && [ -c "$t/full" ] && [ ! -e "$w/fw-full.txt" ] &&
        [ ! -e "$w/rep-full.txt" ] && grep -q "cannot write" "$w/err" &&
        [ -z "$(ls "$w" | grep '\.tmp')" ]; then ok; else
        bad "--bw a full device: status $st, $(cat "$w/err")"
    fi

    # Every command fails when standard output cannot be written.
    printf 'sym s0 = 8\ntest s0=8\n' >"$w/script.env"
    while read -r name args; do
        eval "set -- $args"
        # (a device only the shell opens: the cases above may have
        # replaced the other one)
        R "$SYMCUT" "$@" >"$t/stdout-full" 2>"$w/err"
        st=$?
        if [ $st != 0 ] && grep -q "cannot write" "$w/err"; then ok; else
            bad "'symcut $args > full': status $st, $(cat "$w/err")"
        fi
    done <<EOF
help --help
version --version
expr-help expr --help
expr expr simplify 's0*2'
env env "$w/script.env"
graph graph "$joint"
joint joint "$fwd"
partition partition "$joint"
run run "$joint"
validate validate "$joint"
validate-help validate --help
gradcheck gradcheck "$joint"
gradcheck-help gradcheck --help
random random --seed 1
EOF
}

who=$(id -un)
drop=
mkdir "$t/self"
cases - "$t/self"
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null 2>&1; then
        drop="setpriv --reuid=65534 --regid=65534 --clear-groups"
    elif command -v runuser >/dev/null 2>&1; then
        drop="runuser -u nobody --"
    fi
    if [ -n "$drop" ] && $drop true 2>/dev/null; then
        who=nobody
        mkdir "$t/nobody"
        chown 65534:65534 "$t/nobody"
        cases nobody "$t/nobody"
    else
        echo "SKIP the unprivileged half: neither setpriv nor runuser can drop to nobody"
    fi
else
    echo "SKIP the root half: not running as root (the cases ran as $who)"
fi
echo "cli output: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
