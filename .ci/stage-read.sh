#!/bin/sh
# .ci/stage-read.sh BUILDDIR: the graph reader on the model zoo.  Runs
# tools/read/zoo-counts.sh on examples/zoo (when the tree has it) with the
# built symcut, prints the counts (texts, read, re-printed stably; logs and
# traces count each graph they hold) and every failure, and exits non-zero
# when a zoo text does not read or does not re-print stably.  Needs only
# the build and a POSIX shell.
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$srcdir/build}" && pwd) || exit 2
zoo=$srcdir/examples/zoo
if [ ! -d "$zoo" ]; then
    echo "stage-read: no examples/zoo, nothing to check"
    exit 0
fi
out=$(sh "$srcdir/tools/read/zoo-counts.sh" "$builddir/symcut" "$zoo") || exit 2
echo "$out"
counts=$(echo "$out" | head -1)
total=$(echo "$counts" | sed 's/texts: \([0-9]*\),.*/\1/')
stable=$(echo "$counts" | sed 's/.*stably: \([0-9]*\)$/\1/')
[ "$total" = "$stable" ]
