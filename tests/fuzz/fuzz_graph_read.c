/* symcut — a libFuzzer target for the graph reader: every input either
 * reads (and then writes and reads back to an equal graph) or fails with
 * a located error.  Built by `make fuzz` against the library compiled with
 * the fuzzer's instrumentation; run by tests/fuzz/run-fuzz.sh with the
 * bundled examples and test graphs as the seed corpus (doc/testing.md). */
#include <stdint.h>
#include <stdlib.h>

#include <symcut/graph.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL, *g2 = NULL;
    sc_error err;
    char *text = NULL;
    size_t len;

    if (!ctx)
        return 0;
    if (sc_graph_read_text(ctx, (const char *)data, size, "fuzz", NULL, &g,
                           &err) == SC_OK) {
        if (sc_graph_write_text(g, NULL, &text, &len, &err) == SC_OK) {
            if (sc_graph_read_text(ctx, text, len, "written", NULL, &g2,
                                   &err) != SC_OK ||
                !sc_graph_equal(g, g2, 0, NULL, 0))
                abort(); /* the writer must produce what the reader reads */
        }
    } else if (err.line <= 0 && err.code != SC_ERR_NOMEM) {
        abort(); /* every reader error is located */
    }
    free(text);
    sc_graph_free(g2);
    sc_graph_free(g);
    sc_ctx_free(ctx);
    return 0;
}
