#!/bin/sh
# symcut — build the libFuzzer targets (called by `make fuzz`).
#
#   build.sh SRCDIR BUILDDIR LIBRARY-SOURCES...
#
# Compiles every .c file of the library (the generated ones are found in
# BUILDDIR) with the fuzzer's instrumentation into BUILDDIR/tests/fuzz/obj,
# then links each target tests/fuzz/fuzz_*.c into BUILDDIR/tests/fuzz/.
# An object is rebuilt when its source, or any header of the tree, is newer.
# Environment: FUZZ_CC (default clang), FUZZ_CFLAGS (added), EXTRA_CPPFLAGS
# (include flags of igraph, libyaml, jansson), EXTRA_LIBS (their
# libraries, GMP's, -lm), JOBS (parallel compilations, default 2).
set -eu
srcdir=$1
builddir=$2
shift 2
CC=${FUZZ_CC:-clang}
JOBS=${JOBS:-2}
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 ${FUZZ_CFLAGS:-}"
CPPFLAGS="-I$srcdir/include -I$srcdir -I$builddir ${EXTRA_CPPFLAGS:-}"
out=$builddir/tests/fuzz
obj=$out/obj

probe=$(mktemp -d) || exit 1
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
    echo "make fuzz: '$CC' cannot build libFuzzer targets (-fsanitize=fuzzer)." >&2
    echo "make fuzz: install clang (Debian: apt-get install clang) or run" >&2
    echo "make fuzz:   make fuzz FUZZ_CC=/path/to/clang" >&2
    sed 's/^/make fuzz:   /' "$probe/log" | head -5 >&2
    exit 1
fi

mkdir -p "$obj"
# An object is rebuilt when it is missing or older than its source or one
# of the headers it included (recorded by -MMD in obj/NAME.d).
stale() { # stale SRC OBJ
    [ -f "$2" ] && [ -f "$2.d" ] || return 0
    [ "$1" -nt "$2" ] && return 0
    for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$2.d"); do
        [ "$dep" -nt "$2" ] && return 0
    done
    return 1
}

list=$obj/sources.txt
: >"$list"
objs=
for f in "$@" cli/envscript.c; do
    case $f in
    *.c) ;;
    *) continue ;;
    esac
    if [ -f "$srcdir/$f" ]; then src=$srcdir/$f; else src=$builddir/$f; fi
    o=$obj/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')
    [ "$f" = cli/envscript.c ] || objs="$objs $o"
    if stale "$src" "$o"; then
        echo "$src $o" >>"$list"
    fi
done

n=$(wc -l <"$list")
echo "  FUZZ-CC  $n file(s) with $CC"
# (xargs would run the compiler once without a file on an empty list)
if [ "$n" -gt 0 ]; then
    # shellcheck disable=SC2016
    xargs -P "$JOBS" -n 2 sh -c '"$0" '"$SAN $CFLAGS $CPPFLAGS"' -MMD -MF "$2.d" -c "$1" -o "$2" || exit 255' "$CC" <"$list"
fi
rm -f "$out/libsymcut-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libsymcut-fuzz.a" $objs

for t in fuzz_expr fuzz_envscript fuzz_graph_read fuzz_npy; do
    extra=
    [ $t = fuzz_envscript ] && extra=$obj/cli_envscript.o
    echo "  FUZZ-LD  tests/fuzz/$t"
    # shellcheck disable=SC2086
    "$CC" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        $CFLAGS $CPPFLAGS "$srcdir/tests/fuzz/$t.c" $extra \
        "$out/libsymcut-fuzz.a" ${EXTRA_LIBS:-} -lstdc++ -o "$out/$t"
done
echo "make fuzz: built $out/fuzz_expr, fuzz_envscript, fuzz_graph_read, fuzz_npy"
