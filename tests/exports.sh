#!/bin/sh
# symcut — the shared library exports the public API only: every defined
# dynamic symbol is a public name (sc_ followed by a letter or digit), none
# is internal (sc__) or unprefixed.  Skipped (77) for a static-only build.
set -u
lib=${top_builddir:-.}/.libs/libsymcut.so
[ -f "$lib" ] || { echo "exports: no $lib (static build): skipped"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "exports: no nm: skipped"; exit 77; }
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }')
bad=$(printf '%s\n' "$syms" | grep -v '^sc_[a-z0-9]' | grep -v '^_init$\|^_fini$')
n=$(printf '%s\n' "$syms" | grep -c '^sc_[a-z0-9]')
if [ -n "$bad" ]; then
    echo "exports: libsymcut.so exports names outside the public API:"
    printf '%s\n' "$bad" | head -20
    exit 1
fi
# The public API is there (the CLI links it): a handful of its names.
for s in sc_ctx_new sc_expr_parse sc_env_new sc_graph_read_file \
         sc_partition_run sc_tensor_new sc_interp_run sc_validate_run; do
    printf '%s\n' "$syms" | grep -qx "$s" || { echo "exports: $s missing"; exit 1; }
done
echo "exports: $n public symbols, no internal ones"
