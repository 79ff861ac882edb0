/* symcut benchmark — the float32 matrix product under mm, bmm and addmm.
 *
 *   bench/bench_kernels [--max N] [--reps R]
 *
 * For square sizes 128, 256, ... up to N (default 2048), plus odd shapes
 * that exercise the edge tiles, times on one thread the cache-blocked
 * scalar loop the matmul kernels used before (kept here as the reference)
 * and sc__gemm_f32 (kernels/gemm.c), best of R runs (default 3), prints
 * GFLOP/s of each and checks that both give the same bits (exit 1 if
 * not).  The inputs are drawn from a fixed stream: the same every run. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/gemm.h"

/* The loop nest of kernels/matmul.c before kernels/gemm.c. */
static void gemm_ref(size_t n, size_t kk, size_t m, const float *a,
                     const float *b, float *c)
{
    size_t i0, k0, j0, i, k, j;
    for (i0 = 0; i0 < n; i0 += 64) {
        size_t i1 = i0 + 64 < n ? i0 + 64 : n;
        for (k0 = 0; k0 < kk; k0 += 128) {
            size_t k1 = k0 + 128 < kk ? k0 + 128 : kk;
            for (j0 = 0; j0 < m; j0 += 256) {
                size_t j1 = j0 + 256 < m ? j0 + 256 : m;
                for (i = i0; i < i1; i++) {
                    float *ci = c + i * m;
                    for (k = k0; k < k1; k++) {
                        float aik = a[i * kk + k];
                        const float *bk = b + k * m;
                        for (j = j0; j < j1; j++)
                            ci[j] += aik * bk[j];
                    }
                }
            }
        }
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t state = 42;

static float draw(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(state >> 40) / (double)(1u << 24) * 2.0 - 1.0);
}

typedef void gemm_fn(size_t, size_t, size_t, const float *, const float *,
                     float *);

/* Best seconds of reps runs of f into c (zeroed before each run). */
static double best(gemm_fn *f, int reps, size_t n, size_t k, size_t m,
                   const float *a, const float *b, float *c)
{
    double t = 1e30;
    int r;
    for (r = 0; r < reps; r++) {
        double t0;
        memset(c, 0, n * m * sizeof *c);
        t0 = now();
        f(n, k, m, a, b, c);
        t0 = now() - t0;
        if (t0 < t)
            t = t0;
    }
    return t;
}

static int one(size_t n, size_t k, size_t m, int reps)
{
    float *a = malloc(n * k * sizeof *a), *b = malloc(k * m * sizeof *b);
    float *c1 = malloc(n * m * sizeof *c1), *c2 = malloc(n * m * sizeof *c2);
    double flop = 2.0 * (double)n * (double)k * (double)m, t1, t2;
    size_t i;
    int same;

    if (!a || !b || !c1 || !c2) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    for (i = 0; i < n * k; i++)
        a[i] = draw();
    for (i = 0; i < k * m; i++)
        b[i] = draw();
    t1 = best(gemm_ref, reps, n, k, m, a, b, c1);
    t2 = best(sc__gemm_f32, reps, n, k, m, a, b, c2);
    same = memcmp(c1, c2, n * m * sizeof *c1) == 0;
    printf("%5zu x %5zu x %5zu  %9.2f  %9.2f  %6.1fx  %s\n", n, k, m,
           flop / t1 * 1e-9, flop / t2 * 1e-9, t1 / t2,
           same ? "same bits" : "DIFFERENT");
    fflush(stdout);
    free(a);
    free(b);
    free(c1);
    free(c2);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    size_t max = 2048, s;
    int reps = 3, i, bad = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            max = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_kernels [--max N] [--reps R]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    printf("float32 mm, one thread, best of %d; GFLOP/s\n", reps);
    printf("%-21s  %9s  %9s  %7s\n", "n x k x m", "before", "gemm.c",
           "speedup");
    for (s = 128; s <= max; s *= 2)
        bad |= one(s, s, s, reps);
    bad |= one(1000, 777, 1001, reps);
    bad |= one(7, 300, 5, reps);
    bad |= one(512, 3072, 768, reps);
    return bad;
}
