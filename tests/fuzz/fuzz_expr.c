/* symcut — a libFuzzer target for the expression parser (sc_expr_parse).
 *
 * Every input either parses, and then prints to a text that parses back
 * to the same (interned) expression, or fails with a located error.  The
 * parser reads a C string: the input is cut at its first NUL byte.
 * Built by `make fuzz`, run by tests/fuzz/run-fuzz.sh (doc/testing.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/symint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_ctx *ctx;
    sc_expr *e = NULL, *e2 = NULL;
    sc_error err;
    char *text, *printed;

    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ctx = sc_ctx_new();
    if (!ctx) {
        free(text);
        return 0;
    }
    if (sc_expr_parse(ctx, text, "fuzz", 1, &e, &err) == SC_OK) {
        printed = sc_expr_to_str(ctx, e);
        if (printed) {
            if (sc_expr_parse(ctx, printed, "printed", 1, &e2, &err) !=
                    SC_OK ||
                e2 != e)
                abort(); /* the printer must write what the parser reads */
            free(printed);
        }
    } else if (err.code != SC_ERR_NOMEM &&
               (err.line < 1 || err.column < 1 || !err.message[0])) {
        abort(); /* every parse error is located and explained */
    }
    sc_ctx_free(ctx);
    free(text);
    return 0;
}
