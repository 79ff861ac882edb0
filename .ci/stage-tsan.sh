#!/bin/sh
# CI stage: the thread test under ThreadSanitizer.
#
#   .ci/stage-tsan.sh [BUILDDIR]
#
# Configures the tree with -fsanitize=thread in its own build directory
# (default build-tsan, next to build/), builds the library and
# tests/check_threads (not the other tests) and runs it: several threads, each
# with its own context, partitioning the bundled examples while igraph
# (not instrumented) is entered through symcut's locked section
# (partition/igraph-section.c).  Fails (non-zero) when the build fails, the
# test fails, or ThreadSanitizer reports anything (a race, a lock-order
# inversion, a thread leak).  Installs GCC's ThreadSanitizer runtime with
# apt when the compiler cannot link -fsanitize=thread (sudo when not
# root).  SYMCUT_THREADS / SYMCUT_ROUNDS pass through (defaults here: 4
# threads, 3 rounds: about 500 partitions).  doc/reliability.md, "Threads".
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
build=${1:-build-tsan}
CC=${CC:-gcc}
TSAN="-fsanitize=thread -fno-omit-frame-pointer"

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$probe/p.c"
if ! $CC $TSAN "$probe/p.c" -o "$probe/p" >/dev/null 2>&1 || ! "$probe/p"; then
    echo "stage-tsan: installing GCC's ThreadSanitizer runtime"
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libtsan2 ||
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libtsan0
    $CC $TSAN "$probe/p.c" -o "$probe/p" && "$probe/p" || {
        echo "stage-tsan: $CC cannot build with -fsanitize=thread" >&2
        exit 1
    }
fi

[ -x configure ] || autoreconf -fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$top/configure" CC="$CC" CFLAGS="-g -O1 $TSAN" LDFLAGS="$TSAN" \
        >configure.log 2>&1 || {
        tail -30 configure.log
        exit 1
    }
fi
# `all` first: it makes the generated sources (BUILT_SOURCES).
{ make -j2 all && make -j2 tests/check_threads; } >make.log 2>&1 || {
    tail -40 make.log
    exit 1
}
log=$(pwd)/check_threads.tsan.log
status=0
top_srcdir=$top SYMCUT_THREADS=${SYMCUT_THREADS:-4} \
    SYMCUT_ROUNDS=${SYMCUT_ROUNDS:-3} \
    TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
    ./libtool --mode=execute ./tests/check_threads >"$log" 2>&1 || status=$?
cat "$log"
if grep -q 'ThreadSanitizer' "$log"; then
    echo "stage-tsan: ThreadSanitizer reported a problem (above)" >&2
    exit 1
fi
if [ "$status" != 0 ]; then
    echo "stage-tsan: tests/check_threads failed (status $status)" >&2
    exit 1
fi
echo "stage-tsan: no ThreadSanitizer report"
