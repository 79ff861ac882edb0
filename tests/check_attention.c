/* symcut tests — the CPU flash attention (kernels/attention.c) against
 * torch 2.13's results bit for bit: the graphs of tests/data/attention/
 * (tools/attention/attention_data.py; each the forward, then the backward
 * on the forward's own out and logsumexp) run on their inputs, every
 * result compared with torch's out_K.npy.  The data is read from
 * $top_srcdir/tests/data/attention (the test environment sets top_srcdir),
 * else ./tests/data/attention. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/tensor.h>

#include "tests/testutil.h"

Suite *attention_suite(void);

static void case_path(char *buf, size_t n, const char *name, const char *file)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, n, "%s/tests/data/attention/%s/%s", top ? top : ".", name,
             file);
}

static sc_tensor *load(const char *name, const char *file)
{
    char path[1200];
    sc_tensor *t;
    sc_error err;
    case_path(path, sizeof path, name, file);
    ck_assert_msg(sc_npy_read(path, &t, &err) == SC_OK, "%s: %s", path,
                  err.message);
    return t;
}

/* How many float32 elements of a and b differ in their bits; *ulps: the
 * largest distance in units in the last place (same-sign values). */
static size_t count_diff(const sc_tensor *a, const sc_tensor *b,
                         int64_t *ulps)
{
    const uint32_t *x = sc_tensor_data(a), *y = sc_tensor_data(b);
    size_t n = sc_tensor_numel(a), i, d = 0;
    *ulps = 0;
    for (i = 0; i < n; i++)
        if (x[i] != y[i]) {
            int64_t u = (int64_t)x[i] - (int64_t)y[i];
            if (u < 0)
                u = -u;
            if ((x[i] ^ y[i]) & 0x80000000u)
                u = INT64_MAX;
            if (u > *ulps)
                *ulps = u;
            d++;
        }
    return d;
}

/* name, and the logsumexp's allowed distance in ulps (0: bit for bit). */
static const struct {
    const char *name;
    int64_t lse_ulps;
} cases[] = {
    {"f32_blocks", 0},
    {"f32_mask", 0},
    {"f32_scale", 0},
    /* bfloat16: out, dq, dk, dv bit for bit; torch's float32 logsumexp
       of bfloat16 inputs is matched to within 2 ulps only */
    {"bf16_small", 2},
};

START_TEST(test_attention_torch_bits)
{
    const char *name = cases[_i].name;
    char path[1200];
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *g = NULL;
    sc_tensor **in, **out;
    sc_error err;
    size_t np, no, k;

    case_path(path, sizeof path, name, "graph.txt");
    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s", path, err.message);
    np = sc_graph_placeholder_count(g);
    no = sc_graph_output_count(g);
    ck_assert_uint_eq(no, 5);
    in = calloc(np + 1, sizeof *in);
    out = calloc(no + 1, sizeof *out);
    ck_assert(in && out);
    for (k = 0; k < np; k++) {
        char file[300];
        snprintf(file, sizeof file, "%s.npy",
                 sc_graph_node_name(g, (sc_node_id)k));
        in[k] = load(name, file);
    }
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK,
                  "%s: %s", name, err.message);
    for (k = 0; k < no; k++) {
        char file[32];
        sc_tensor *want, *got;
        size_t d;
        int64_t ulps;
        snprintf(file, sizeof file, "out_%zu.npy", k);
        want = load(name, file);
        ck_assert_int_eq(out[k]->dtype, SC_DTYPE_F32);
        ck_assert(sc_tensor_same_shape(out[k], want));
        ck_assert(sc_tensor_clone(out[k], &got, &err) == SC_OK);
        d = count_diff(got, want, &ulps);
        sc_tensor_free(got);
        ck_assert_msg(d == 0 || (k == 1 && ulps <= cases[_i].lse_ulps),
                      "%s: result %zu: %zu of %zu elements differ from "
                      "torch's (up to %lld ulps)",
                      name, k, d, sc_tensor_numel(want), (long long)ulps);
        sc_tensor_free(want);
        sc_tensor_free(out[k]);
    }
    for (k = 0; k < np; k++)
        sc_tensor_free(in[k]);
    free(in);
    free(out);
    sc_graph_free(g);
    sc_ctx_free(ctx);
}
END_TEST

Suite *attention_suite(void)
{
    Suite *s = suite_create("attention");
    TCase *tc = tcase_create("torch");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_attention_torch_bits, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, tc);
    return s;
}
