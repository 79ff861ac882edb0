/* symcut tests — the streaming writer: sc_graph_write_stream writes a
 * large graph's text in chunks, byte for byte what sc_graph_write_text
 * gives, and reports a stream that refuses the text. */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>

#include "tests/testutil.h"

Suite *write_stream_suite(void);

/* The text of g through a temporary stream, in a malloc'ed buffer. */
static char *stream_text(const sc_graph *g, size_t *len)
{
    FILE *f = tmpfile();
    sc_error err;
    char *buf;
    long n;

    ck_assert_ptr_nonnull(f);
    sc_error_init(&err);
    ck_assert_int_eq(sc_graph_write_stream(g, NULL, f, &err), SC_OK);
    n = ftell(f);
    ck_assert_int_ge(n, 0);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    rewind(f);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Random graphs large enough for several chunks (over a megabyte of
 * text) and small ones (one chunk): the stream holds exactly the text. */
START_TEST(test_stream_is_text)
{
    uint64_t seed = sc_test_seed();
    long cases = sc_test_cases(3), c;
    printf("write_stream: seed %llu, %ld cases\n", (unsigned long long)seed,
           cases);
    for (c = 0; c < cases; c++) {
        sc_ctx *ctx = sc_ctx_new();
        sc_graph_random_options ro;
        sc_graph *g = NULL;
        sc_error err;
        char *text = NULL, *streamed;
        size_t len = 0, slen = 0;

        sc_graph_random_options_init(&ro);
        ro.seed = seed + (uint64_t)c;
        ro.nodes = c % 2 ? 40 : 15000;
        ro.symbolic = c % 3 == 2;
        ck_assert_int_eq(sc_graph_new_random(ctx, &ro, &g, &err), SC_OK);
        ck_assert_int_eq(sc_graph_write_text(g, NULL, &text, &len, &err),
                         SC_OK);
        if (ro.nodes > 1000)
            ck_assert_uint_gt(len, 1u << 20);
        streamed = stream_text(g, &slen);
        ck_assert_uint_eq(slen, len);
        ck_assert(memcmp(streamed, text, len) == 0);
        free(streamed);
        free(text);
        sc_graph_free(g);
        sc_ctx_free(ctx);
    }
}
END_TEST

/* A stream that takes only a few bytes (a fixed memory buffer): the
 * writer stops and says SC_ERR_IO. */
START_TEST(test_stream_refused)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph_random_options ro;
    sc_graph *g = NULL;
    sc_error err;
    char small[512];
    FILE *f;

    sc_graph_random_options_init(&ro);
    ro.seed = 7;
    ro.nodes = 15000;
    ck_assert_int_eq(sc_graph_new_random(ctx, &ro, &g, &err), SC_OK);
    f = fmemopen(small, sizeof small, "w");
    ck_assert_ptr_nonnull(f);
    setvbuf(f, NULL, _IONBF, 0);
    ck_assert_int_eq(sc_graph_write_stream(g, NULL, f, &err), SC_ERR_IO);
    fclose(f);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *write_stream_suite(void)
{
    Suite *s = suite_create("write_stream");
    TCase *tc = tcase_create("stream");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_stream_is_text);
    tcase_add_test(tc, test_stream_refused);
    suite_add_tcase(s, tc);
    return s;
}
