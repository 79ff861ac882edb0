/* symcut tests — shared helpers. */
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
