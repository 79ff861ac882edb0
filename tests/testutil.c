/* symcut tests — shared helpers. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testutil.h"

uint64_t sc_test_seed(void)
{
    static int have;
    static uint64_t seed;
    const char *s;

    if (have)
        return seed;
    s = getenv("SYMCUT_SEED");
    if (s && *s)
        seed = strtoull(s, NULL, 0);
    else
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    have = 1;
    printf("symcut tests: SYMCUT_SEED=%llu\n", (unsigned long long)seed);
    fflush(stdout);
    return seed;
}

long sc_test_cases(long dflt)
{
    const char *s = getenv("SYMCUT_CASES");
    long n;
    if (!s || !*s)
        return dflt;
    n = strtol(s, NULL, 0);
    return n > 0 ? n : dflt;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sc_test_rng_init(sc_test_rng *r, uint64_t seed)
{
    int i;
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

uint64_t sc_test_rng_next(sc_test_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sc_test_rng_below(sc_test_rng *r, uint64_t n)
{
    uint64_t x, lim = UINT64_MAX - UINT64_MAX % n;
    do
        x = sc_test_rng_next(r);
    while (x >= lim);
    return x % n;
}

int64_t sc_test_rng_range(sc_test_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span == UINT64_MAX)
        return (int64_t)sc_test_rng_next(r);
    return (int64_t)((uint64_t)lo + sc_test_rng_below(r, span + 1));
}

size_t sc_test_num_bindings(const sc_graph *j, const sc_graph *fw,
                            size_t first)
{
    size_t k, n = 0;
    for (k = first; k < sc_graph_output_count(fw); k++) {
        sc_node_id o = sc_graph_output(fw, k);
        const char *t = o != SC_NODE_NONE ? sc_graph_node_target(fw, o) : NULL;
        if (o != SC_NODE_NONE &&
            sc_graph_find(j, sc_graph_node_name(fw, o)) == SC_NODE_NONE &&
            t && strstr(t, "sym_size"))
            n++;
    }
    return n;
}

char *sc_test_data_path(const char *dir, const char *name,
                        const char *suffix)
{
    const char *top = getenv("top_srcdir");
    size_t n = strlen(top ? top : ".") + strlen(dir) + strlen(name) +
               strlen(suffix) + 32;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/tests/data/%s/%s%s", top ? top : ".", dir, name,
             suffix);
    return p;
}

sc_tensor *sc_test_load_npy(const char *dir, const char *name,
                            const char *file)
{
    char rel[256], *p;
    sc_tensor *t = NULL;
    sc_error err;
    snprintf(rel, sizeof rel, ".data/%s.npy", file);
    p = sc_test_data_path(dir, name, rel);
    if (sc_npy_read(p, &t, &err) != SC_OK) {
        fprintf(stderr, "%s: %s\n", p, err.message);
        abort();
    }
    free(p);
    return t;
}

/* Do a and b hold the same values (see sc_test_torch_case)?  *at: the
 * first element that differs. */
static bool torch_same(const sc_tensor *a, const sc_tensor *b, double rtol,
                       size_t *at)
{
    size_t n, i;
    if (!sc_tensor_same_shape(a, b) || (rtol == 0 && a->dtype != b->dtype))
        return false;
    n = sc_tensor_numel(a);
    for (i = 0; i < n; i++) {
        bool same;
        if (rtol == 0 && a->dtype == SC_DTYPE_I64) {
            same = sc_tensor_item_int64(a, i) == sc_tensor_item_int64(b, i);
        } else {
            double x = sc_tensor_item_double(a, i);
            double y = sc_tensor_item_double(b, i);
            same = rtol > 0 ? fabs(x - y) <= rtol * fabs(y)
                            : memcmp(&x, &y, sizeof x) == 0;
        }
        if (!same) {
            *at = i;
            return false;
        }
    }
    return true;
}

bool sc_test_graph_has_target(const sc_graph *g, const char *target)
{
    size_t k;
    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL &&
            strcmp(sc_graph_node_target(g, (sc_node_id)k), target) == 0)
            return true;
    return false;
}

sc_graph *sc_test_torch_case(sc_ctx *ctx, const char *dir, const char *name,
                             double rtol)
{
    sc_graph *g = NULL;
    sc_error err;
    char *path = sc_test_data_path(dir, name, ".txt");
    sc_tensor **in, **out;
    size_t np, no, k, at = 0;

    ck_assert_msg(sc_graph_read_file(ctx, path, NULL, &g, &err) == SC_OK,
                  "%s: %s", path, err.message);
    for (k = 0; k < sc_graph_node_count(g); k++)
        if (sc_graph_node_kind(g, (sc_node_id)k) == SC_NODE_CALL)
            ck_assert_msg(sc_graph_node_class(g, (sc_node_id)k) != NULL,
                          "%s: %s is not in the op table", name,
                          sc_graph_node_target(g, (sc_node_id)k));
    np = sc_graph_placeholder_count(g);
    no = sc_graph_output_count(g);
    in = calloc(np + 1, sizeof *in);
    out = calloc(no + 1, sizeof *out);
    ck_assert(in && out);
    for (k = 0; k < np; k++)
        in[k] = sc_test_load_npy(dir, name,
                                 sc_graph_node_name(g, (sc_node_id)k));
    ck_assert_msg(sc_interp_run(g, in, NULL, out, NULL, &err) == SC_OK,
                  "%s: %s", name, err.message);
    for (k = 0; k < no; k++) {
        char file[32];
        sc_tensor *want;
        snprintf(file, sizeof file, "out_%zu", k);
        want = sc_test_load_npy(dir, name, file);
        ck_assert_msg(torch_same(out[k], want, rtol, &at),
                      "%s: output %zu differs from torch's at element %zu: "
                      "%.9g, torch %.9g", name, k, at,
                      sc_tensor_item_double(out[k], at),
                      sc_tensor_item_double(want, at));
        sc_tensor_free(want);
        sc_tensor_free(out[k]);
    }
    for (k = 0; k < np; k++)
        sc_tensor_free(in[k]);
    free(in);
    free(out);
    free(path);
    return g;
}
