/* symcut benchmark — the matrix products under mm, bmm, addmm and
 * convolution.
 *
 *   bench/bench_kernels [--max N] [--reps R]
 *
 * float32 and float64: for square sizes 128, 256, ... up to N (default
 * 2048; float64 up to N/2), plus odd shapes that exercise the edge tiles,
 * times on one thread the cache-blocked scalar loop the matmul kernels
 * used before, each step one fmaf (the reference of the contract of
 * kernels/gemm.h), and sc__gemm_f32 / sc__gemm_f64 (kernels/gemm.c, the
 * micro-kernel it names), best of R runs (default 3), prints GFLOP/s of
 * each and checks that both give the same bits (exit 1 if not).
 *
 * Convolution (float32, 2-d, ResNet-like layers): the direct loop nest
 * kernels/conv.c used before, with fmaf steps (the reference) against the
 * kernel (im2col on sc__gemm_f32), forward and weight gradient (the same
 * bits: checked) and input gradient (a different fixed order: the largest
 * relative difference is printed).  Times are CPU seconds of the process
 * (the build machine is shared).  The inputs are drawn from a fixed
 * stream: the same every run. */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/gemm.h"
#include "kernels/kernels-internal.h"

/* The reference of the contract of kernels/gemm.h: the cache-blocked
 * scalar loop nest (the one kernels/matmul.c used before kernels/gemm.c),
 * each step one fmaf in increasing k (cloned for FMA hardware, so that
 * the fused step is one instruction, not a library call). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define REF_CLONES __attribute__((target_clones("fma", "default")))
#else
#define REF_CLONES
#endif

REF_CLONES static void gemm_ref(size_t n, size_t kk, size_t m, const float *a,
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
                            ci[j] = fmaf(aik, bk[j], ci[j]);
                    }
                }
            }
        }
    }
}

REF_CLONES static void gemm_ref64(size_t n, size_t kk, size_t m, const double *a,
                       const double *b, double *c)
{
    size_t i0, k0, j0, i, k, j;
    for (i0 = 0; i0 < n; i0 += 64) {
        size_t i1 = i0 + 64 < n ? i0 + 64 : n;
        for (k0 = 0; k0 < kk; k0 += 128) {
            size_t k1 = k0 + 128 < kk ? k0 + 128 : kk;
            for (j0 = 0; j0 < m; j0 += 256) {
                size_t j1 = j0 + 256 < m ? j0 + 256 : m;
                for (i = i0; i < i1; i++) {
                    double *ci = c + i * m;
                    for (k = k0; k < k1; k++) {
                        double aik = a[i * kk + k];
                        const double *bk = b + k * m;
                        for (j = j0; j < j1; j++)
                            ci[j] = fma(aik, bk[j], ci[j]);
                    }
                }
            }
        }
    }
}

/* CPU seconds of this process: on a shared, loaded machine the wall time
 * counts the other processes' turns too. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

typedef void gemm64_fn(size_t, size_t, size_t, const double *,
                       const double *, double *);

static int one64(size_t n, size_t k, size_t m, int reps)
{
    double *a = malloc(n * k * sizeof *a), *b = malloc(k * m * sizeof *b);
    double *c1 = malloc(n * m * sizeof *c1), *c2 = malloc(n * m * sizeof *c2);
    double flop = 2.0 * (double)n * (double)k * (double)m, t[2] = {1e30, 1e30};
    gemm64_fn *fs[2] = {gemm_ref64, sc__gemm_f64};
    double *cs[2];
    size_t i;
    int same, r, v;

    if (!a || !b || !c1 || !c2) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    cs[0] = c1;
    cs[1] = c2;
    for (i = 0; i < n * k; i++)
        a[i] = draw();
    for (i = 0; i < k * m; i++)
        b[i] = draw();
    for (v = 0; v < 2; v++)
        for (r = 0; r < reps; r++) {
            double t0;
            memset(cs[v], 0, n * m * sizeof *c1);
            t0 = now();
            fs[v](n, k, m, a, b, cs[v]);
            t0 = now() - t0;
            if (t0 < t[v])
                t[v] = t0;
        }
    same = memcmp(c1, c2, n * m * sizeof *c1) == 0;
    printf("%5zu x %5zu x %5zu  %9.2f  %9.2f  %6.1fx  %s\n", n, k, m,
           flop / t[0] * 1e-9, flop / t[1] * 1e-9, t[0] / t[1],
           same ? "same bits" : "DIFFERENT");
    fflush(stdout);
    free(a);
    free(b);
    free(c1);
    free(c2);
    return same ? 0 : 1;
}

/* ---- Convolution ----------------------------------------------------------- */

/* The direct loop nests of kernels/conv.c before im2col, 2-d, groups 1:
 * x [N, C, H, W], w [O, C, K, K], stride st, padding pd; y [N, O, Ho, Wo]. */
REF_CLONES static void conv_ref(int64_t N, int64_t C, int64_t H, int64_t W, int64_t O,
                     int64_t K, int64_t st, int64_t pd, const float *x,
                     const float *w, float *y, int64_t Ho, int64_t Wo)
{
    int64_t n, o, i, j, c, p, q;
    for (n = 0; n < N; n++)
        for (o = 0; o < O; o++)
            for (i = 0; i < Ho; i++)
                for (j = 0; j < Wo; j++) {
                    float acc = 0;
                    for (c = 0; c < C; c++)
                        for (p = 0; p < K; p++) {
                            int64_t h = i * st - pd + p;
                            if (h < 0 || h >= H)
                                continue;
                            for (q = 0; q < K; q++) {
                                int64_t v = j * st - pd + q;
                                if (v < 0 || v >= W)
                                    continue;
                                acc = fmaf(x[((n * C + c) * H + h) * W + v],
                                           w[((o * C + c) * K + p) * K + q],
                                           acc);
                            }
                        }
                    y[((n * O + o) * Ho + i) * Wo + j] = acc;
                }
}

REF_CLONES static void wgrad_ref(int64_t N, int64_t C, int64_t H, int64_t W, int64_t O,
                      int64_t K, int64_t st, int64_t pd, const float *x,
                      const float *gy, float *gw, int64_t Ho, int64_t Wo)
{
    int64_t n, o, i, j, c, p, q;
    for (o = 0; o < O; o++)
        for (c = 0; c < C; c++)
            for (p = 0; p < K; p++)
                for (q = 0; q < K; q++) {
                    float acc = 0;
                    for (n = 0; n < N; n++)
                        for (i = 0; i < Ho; i++) {
                            int64_t h = i * st - pd + p;
                            if (h < 0 || h >= H)
                                continue;
                            for (j = 0; j < Wo; j++) {
                                int64_t v = j * st - pd + q;
                                if (v < 0 || v >= W)
                                    continue;
                                acc = fmaf(gy[((n * O + o) * Ho + i) * Wo + j],
                                           x[((n * C + c) * H + h) * W + v],
                                           acc);
                            }
                        }
                    gw[((o * C + c) * K + p) * K + q] = acc;
                }
}

REF_CLONES static void igrad_ref(int64_t N, int64_t C, int64_t H, int64_t W, int64_t O,
                      int64_t K, int64_t st, int64_t pd, const float *w,
                      const float *gy, float *gx, int64_t Ho, int64_t Wo)
{
    int64_t n, o, i, j, c, p, q;
    memset(gx, 0, (size_t)(N * C * H * W) * sizeof *gx);
    for (n = 0; n < N; n++)
        for (o = 0; o < O; o++)
            for (i = 0; i < Ho; i++)
                for (j = 0; j < Wo; j++) {
                    float g = gy[((n * O + o) * Ho + i) * Wo + j];
                    for (c = 0; c < C; c++)
                        for (p = 0; p < K; p++) {
                            int64_t h = i * st - pd + p;
                            if (h < 0 || h >= H)
                                continue;
                            for (q = 0; q < K; q++) {
                                int64_t v = j * st - pd + q;
                                if (v < 0 || v >= W)
                                    continue;
                                gx[((n * C + c) * H + h) * W + v] +=
                                    g * w[((o * C + c) * K + p) * K + q];
                            }
                        }
                }
}

static sc_tensor *rand_tensor(size_t nd, const int64_t *sizes)
{
    sc_tensor *t = NULL;
    sc_error err;
    size_t i, n;
    if (sc_tensor_new(SC_DTYPE_F32, nd, sizes, &t, &err) != SC_OK) {
        fprintf(stderr, "bench_kernels: %s\n", err.message);
        exit(1);
    }
    n = sc_tensor_numel(t);
    for (i = 0; i < n; i++)
        ((float *)sc_tensor_data(t))[i] = draw();
    return t;
}

static sc__karg ka_t(const sc_tensor *t)
{
    sc__karg a;
    memset(&a, 0, sizeof a);
    a.kind = SC__KARG_TENSOR;
    a.u.t = t;
    return a;
}

static sc__karg ka_ints(const int64_t *v, size_t n)
{
    sc__karg a;
    memset(&a, 0, sizeof a);
    a.kind = SC__KARG_INTS;
    a.u.ints.v = v;
    a.u.ints.n = n;
    return a;
}

static sc__karg ka_scalar(sc__karg_kind kind, int64_t i, bool b)
{
    sc__karg a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    if (kind == SC__KARG_BOOL)
        a.u.b = b;
    else
        a.u.i = i;
    return a;
}

static sc_tensor *call_kernel(sc_status (*fn)(sc__kernel_call *),
                              const sc__karg *args, size_t nargs,
                              sc_tensor **outs, size_t want)
{
    sc__kernel_call c;
    sc_error err;
    memset(&c, 0, sizeof c);
    c.args = args;
    c.nargs = nargs;
    c.outs = outs;
    c.max_outs = 3;
    c.err = &err;
    if (fn(&c) != SC_OK || c.nouts < want) {
        fprintf(stderr, "bench_kernels: convolution: %s\n", err.message);
        exit(1);
    }
    return outs[0];
}

static int conv_one(int64_t N, int64_t C, int64_t H, int64_t O, int64_t K,
                    int64_t st, int reps)
{
    int64_t pd = K / 2, Ho = (H + 2 * pd - K) / st + 1;
    int64_t xs[4] = {N, C, H, H}, ws[4] = {O, C, K, K}, ys[4] = {N, O, Ho, Ho};
    int64_t stv[2] = {st, st}, pdv[2] = {pd, pd}, dlv[2] = {1, 1},
            opv[2] = {0, 0};
    bool mask[3] = {true, true, false};
    sc_tensor *x = rand_tensor(4, xs), *w = rand_tensor(4, ws);
    sc_tensor *gy = rand_tensor(4, ys), *outs[3] = {NULL, NULL, NULL};
    float *ry = malloc((size_t)(N * O * Ho * Ho) * sizeof *ry);
    float *rgw = malloc((size_t)(O * C * K * K) * sizeof *rgw);
    float *rgx = malloc((size_t)(N * C * H * H) * sizeof *rgx);
    double flop = 2.0 * (double)(N * O * Ho * Ho) * (double)(C * K * K);
    double tf[2] = {1e30, 1e30}, tb[2] = {1e30, 1e30}, maxrel = 0;
    sc__karg fa[9], ba[11];
    int r, bad = 0;
    size_t i;

    if (!ry || !rgw || !rgx) {
        fprintf(stderr, "bench_kernels: out of memory\n");
        exit(1);
    }
    fa[0] = ka_t(x);
    fa[1] = ka_t(w);
    fa[2] = ka_scalar(SC__KARG_NONE, 0, false);
    fa[3] = ka_ints(stv, 2);
    fa[4] = ka_ints(pdv, 2);
    fa[5] = ka_ints(dlv, 2);
    fa[6] = ka_scalar(SC__KARG_BOOL, 0, false);
    fa[7] = ka_ints(opv, 2);
    fa[8] = ka_scalar(SC__KARG_INT, 1, false);
    ba[0] = ka_t(gy);
    ba[1] = ka_t(x);
    ba[2] = ka_t(w);
    ba[3] = ka_scalar(SC__KARG_NONE, 0, false);
    memcpy(&ba[4], &fa[3], 6 * sizeof fa[0]);
    memset(&ba[10], 0, sizeof ba[10]);
    ba[10].kind = SC__KARG_BOOLS;
    ba[10].u.bools.v = mask;
    ba[10].u.bools.n = 3;
    for (r = 0; r < reps; r++) {
        double t0 = now();
        conv_ref(N, C, H, H, O, K, st, pd, sc_tensor_data(x),
                 sc_tensor_data(w), ry, Ho, Ho);
        t0 = now() - t0;
        if (t0 < tf[0])
            tf[0] = t0;
        t0 = now();
        wgrad_ref(N, C, H, H, O, K, st, pd, sc_tensor_data(x),
                  sc_tensor_data(gy), rgw, Ho, Ho);
        igrad_ref(N, C, H, H, O, K, st, pd, sc_tensor_data(w),
                  sc_tensor_data(gy), rgx, Ho, Ho);
        t0 = now() - t0;
        if (t0 < tb[0])
            tb[0] = t0;
    }
    for (r = 0; r < reps; r++) {
        double t0;
        sc_tensor_free(outs[0]);
        outs[0] = NULL;
        t0 = now();
        call_kernel(sc__kernel_convolution, fa, 9, outs, 1);
        t0 = now() - t0;
        if (t0 < tf[1])
            tf[1] = t0;
    }
    bad |= memcmp(sc_tensor_data(outs[0]), ry,
                  sc_tensor_nbytes(outs[0])) != 0;
    sc_tensor_free(outs[0]);
    outs[0] = NULL;
    for (r = 0; r < reps; r++) {
        double t0;
        sc_tensor_free(outs[0]);
        sc_tensor_free(outs[1]);
        outs[0] = outs[1] = NULL;
        t0 = now();
        call_kernel(sc__kernel_convolution_backward, ba, 11, outs, 2);
        t0 = now() - t0;
        if (t0 < tb[1])
            tb[1] = t0;
    }
    bad |= memcmp(sc_tensor_data(outs[1]), rgw,
                  sc_tensor_nbytes(outs[1])) != 0;
    for (i = 0; i < (size_t)(N * C * H * H); i++) {
        double a = ((float *)sc_tensor_data(outs[0]))[i], b = rgx[i];
        double d = a > b ? a - b : b - a, m = b < 0 ? -b : b;
        if (m > 1e-3 && d / m > maxrel)
            maxrel = d / m;
    }
    printf("x[%lld,%lld,%lld,%lld] w[%lld,%lld,%lld,%lld] s%lld  fwd %7.2f %7.2f "
           "%5.1fx  bwd %7.2f %7.2f %5.1fx  %s, dx rel %.1e\n",
           (long long)N, (long long)C, (long long)H, (long long)H,
           (long long)O, (long long)C, (long long)K, (long long)K,
           (long long)st, flop / tf[0] * 1e-9, flop / tf[1] * 1e-9,
           tf[0] / tf[1], 2 * flop / tb[0] * 1e-9, 2 * flop / tb[1] * 1e-9,
           tb[0] / tb[1], bad ? "DIFFERENT" : "y, dw same bits", maxrel);
    fflush(stdout);
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    sc_tensor_free(x);
    sc_tensor_free(w);
    sc_tensor_free(gy);
    free(ry);
    free(rgw);
    free(rgx);
    return bad;
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
    printf("gemm micro-kernel: %s\n", sc__gemm_kernel_name(sc__gemm_level()));
    printf("float32 mm, one thread, best of %d; GFLOP/s\n", reps);
    printf("%-21s  %9s  %9s  %7s\n", "n x k x m", "scalar", "gemm.c",
           "speedup");
    for (s = 128; s <= max; s *= 2)
        bad |= one(s, s, s, reps);
    bad |= one(1000, 777, 1001, reps);
    bad |= one(7, 300, 5, reps);
    bad |= one(512, 3072, 768, reps);
    printf("\nfloat64 mm, one thread, best of %d; GFLOP/s\n", reps);
    printf("%-21s  %9s  %9s  %7s\n", "n x k x m", "scalar", "gemm.c",
           "speedup");
    for (s = 128; s <= max / 2; s *= 2)
        bad |= one64(s, s, s, reps);
    bad |= one64(1000, 777, 1001, reps);
    printf("\nfloat32 convolution 2-d, one thread, best of %d; GFLOP/s "
           "before, after, speedup\n", reps);
    bad |= conv_one(8, 64, 56, 64, 3, 1, reps);
    bad |= conv_one(8, 128, 28, 128, 3, 1, reps);
    bad |= conv_one(8, 64, 56, 128, 1, 2, reps);
    bad |= conv_one(16, 3, 64, 32, 7, 2, reps);
    return bad;
}
