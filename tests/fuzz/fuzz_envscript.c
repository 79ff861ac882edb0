/* symcut — a libFuzzer target for the shape-environment script of
 * `symcut env` (cli/envscript.c): every input runs to its end, and a
 * failing script reports its first error with a line.
 * Built by `make fuzz`, run by tests/fuzz/run-fuzz.sh (doc/testing.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/envscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink; /* the results are not looked at */
    sc_error err;
    sc_status st;

    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    st = cli_envscript_run((const char *)data, size, sink, &err);
    if (st != SC_OK && st != SC_ERR_NOMEM && st != SC_ERR_IO &&
        (err.line < 1 || !err.message[0]))
        abort(); /* every script error names its line */
    if (st != SC_OK && err.code != st)
        abort();
    return 0;
}
