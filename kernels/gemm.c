/* symcut — kernels: the float32 and float64 matrix products (see
 * kernels/gemm.h for the summation contract: a chain of fused
 * multiply-adds in increasing k for every element).
 *
 * Packed panels and a register tile of MR x NR accumulators: k is cut
 * into the fewest passes of at most KC (768) of equal length; B is copied
 * in panels of kc rows by NR columns (zero-padded), A in slivers of MR
 * rows by kc (interleaved by k), both read through any element strides
 * (transposed operands are packed in place, never copied first); the tile
 * of C is loaded (or starts at +0 for sc__gemm_*_set), takes kc fused rank-one updates in increasing k and is
 * stored back, so each element of C sees the products in the order of the
 * scalar loop, each one fused with its sum.  Since every step is one
 * correctly rounded fma, the tile shape does not change the bits, and the
 * machine picks its own at run time: on x86-64, AVX-512 (12 x 32 floats,
 * 12 x 16 doubles) or AVX2 + FMA (6 x 16, 6 x 8); elsewhere (and on x86-64
 * without FMA) portable code calling fmaf / fma (4 x 16, 4 x 8), which
 * compilers turn into the machine's fused instruction where it has one. */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/gemm.h"
#include "util/internal.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define GEMM_X86 1
#include <immintrin.h>
#define TARGET_AVX512 __attribute__((target("avx512f")))
#define TARGET_AVX2 __attribute__((target("avx2,fma")))
#endif

#define MR_MAX 12
#define NR_MAX 32
#define KC 768 /* the longest pass over k */
#define MC_ROWS 144 /* rows of A per packed block: a multiple of 12, 6, 4 */
#define NC_BYTES (1u << 21) /* a packed panel of B: 2 MB at most */

/* The machine's kernel: 2 AVX-512, 1 AVX2 + FMA, 0 portable. */
static int gemm_level(void)
{
#ifdef GEMM_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return 1;
#endif
    return 0;
}

const char *sc__gemm_kernel_name(int level)
{
    static const char *const names[] = {"portable", "avx2-fma", "avx512"};
    return names[level < 0 ? 0 : level > 2 ? 2 : level];
}

/* ---- Micro-kernels: ctile (MR x NR, row stride ldc) += the kc packed
 * products of ap (kc x MR) and bp (kc x NR), fused, in increasing k. ---- */

#define PORTABLE_MICRO(SUF, T, FMA, NR_)                                      \
    static void micro_portable_##SUF(size_t kc, const T *ap, const T *bp,  \
                                     T *c, size_t ldc, int zero)           \
    {                                                                      \
        T acc[4][NR_];                                                     \
        size_t p, r, q;                                                    \
        for (r = 0; r < 4; r++)                                            \
            if (zero)                                                      \
                for (q = 0; q < NR_; q++)                                  \
                    acc[r][q] = 0;                                         \
            else                                                           \
                memcpy(acc[r], c + r * ldc, sizeof acc[r]);                \
        for (p = 0; p < kc; p++, ap += 4, bp += NR_)                       \
            for (r = 0; r < 4; r++)                                        \
                for (q = 0; q < NR_; q++)                                  \
                    acc[r][q] = FMA(ap[r], bp[q], acc[r][q]);              \
        for (r = 0; r < 4; r++)                                            \
            memcpy(c + r * ldc, acc[r], sizeof acc[r]);                    \
    }

PORTABLE_MICRO(f32, float, fmaf, 16)
PORTABLE_MICRO(f64, double, fma, 8)

#ifdef GEMM_X86
/* One vector type V of W lanes, two vectors per tile row (NR = 2W), R
 * rows; LOAD/STORE/SET1/FMADD the intrinsics. */
#define ROW_DECL(r) V c##r##a, c##r##b;
#define ROW_LOAD(r)                                                          \
    c##r##a = LOAD(c + (r) * ldc), c##r##b = LOAD(c + (r) * ldc + W);
#define ROW_ZERO(r) c##r##a = ZERO(), c##r##b = ZERO();
#define ROW_STORE(r)                                                         \
    STORE(c + (r) * ldc, c##r##a), STORE(c + (r) * ldc + W, c##r##b);
#define ROW_FMA(r)                                                           \
    {                                                                        \
        V av = SET1(ap[r]);                                                  \
        c##r##a = FMADD(av, b0, c##r##a);                                    \
        c##r##b = FMADD(av, b1, c##r##b);                                    \
    }
#define ROWS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define ROWS12(X) ROWS6(X) X(6) X(7) X(8) X(9) X(10) X(11)

#define X86_MICRO(NAME, TGT, T, ROWS, MR_)                                   \
    TGT static void NAME(size_t kc, const T *ap, const T *bp, T *c,          \
                         size_t ldc, int zero)                               \
    {                                                                        \
        ROWS(ROW_DECL)                                                       \
        V b0, b1;                                                            \
        size_t p;                                                            \
        if (zero) {                                                          \
            ROWS(ROW_ZERO)                                                   \
        } else {                                                             \
            ROWS(ROW_LOAD)                                                   \
        }                                                                    \
        for (p = 0; p < kc; p++, ap += MR_, bp += 2 * W) {                   \
            b0 = LOAD(bp);                                                   \
            b1 = LOAD(bp + W);                                               \
            ROWS(ROW_FMA)                                                    \
        }                                                                    \
        ROWS(ROW_STORE)                                                      \
    }

#define V __m512
#define ZERO _mm512_setzero_ps
#define W 16
#define LOAD _mm512_loadu_ps
#define STORE _mm512_storeu_ps
#define SET1 _mm512_set1_ps
#define FMADD _mm512_fmadd_ps
X86_MICRO(micro_avx512_f32, TARGET_AVX512, float, ROWS12, 12)
#undef V
#undef W
#undef LOAD
#undef STORE
#undef SET1
#undef FMADD
#undef ZERO

#define V __m512d
#define ZERO _mm512_setzero_pd
#define W 8
#define LOAD _mm512_loadu_pd
#define STORE _mm512_storeu_pd
#define SET1 _mm512_set1_pd
#define FMADD _mm512_fmadd_pd
X86_MICRO(micro_avx512_f64, TARGET_AVX512, double, ROWS12, 12)
#undef V
#undef W
#undef LOAD
#undef STORE
#undef SET1
#undef FMADD
#undef ZERO

#define V __m256
#define ZERO _mm256_setzero_ps
#define W 8
#define LOAD _mm256_loadu_ps
#define STORE _mm256_storeu_ps
#define SET1 _mm256_set1_ps
#define FMADD _mm256_fmadd_ps
X86_MICRO(micro_avx2_f32, TARGET_AVX2, float, ROWS6, 6)
#undef V
#undef W
#undef LOAD
#undef STORE
#undef SET1
#undef FMADD
#undef ZERO

#define V __m256d
#define ZERO _mm256_setzero_pd
#define W 4
#define LOAD _mm256_loadu_pd
#define STORE _mm256_storeu_pd
#define SET1 _mm256_set1_pd
#define FMADD _mm256_fmadd_pd
X86_MICRO(micro_avx2_f64, TARGET_AVX2, double, ROWS6, 6)
#undef V
#undef W
#undef LOAD
#undef STORE
#undef SET1
#undef FMADD
#undef ZERO

/* The scalar loop with the fused instruction inlined (the portable one
 * calls fmaf / fma, which may be a library call on baseline x86-64). */
#define X86_SMALL(NAME, TGT, T, FMA)                                         \
    TGT static void NAME(size_t n, size_t k, size_t m, const T *a,           \
                         ptrdiff_t rsa, ptrdiff_t csa, const T *b,           \
                         ptrdiff_t rsb, ptrdiff_t csb, T *c, size_t ldc)     \
    {                                                                        \
        size_t i, p, j;                                                      \
        for (i = 0; i < n; i++) {                                            \
            T *ci = c + i * ldc;                                             \
            for (p = 0; p < k; p++) {                                        \
                T aip = a[(ptrdiff_t)i * rsa + (ptrdiff_t)p * csa];          \
                const T *bq = b + (ptrdiff_t)p * rsb;                        \
                if (csb == 1)                                                \
                    for (j = 0; j < m; j++)                                  \
                        ci[j] = FMA(aip, bq[j], ci[j]);                      \
                else                                                         \
                    for (j = 0; j < m; j++)                                  \
                        ci[j] = FMA(aip, bq[(ptrdiff_t)j * csb], ci[j]);     \
            }                                                                \
        }                                                                    \
    }
X86_SMALL(small_avx2_f32, TARGET_AVX2, float, __builtin_fmaf)
X86_SMALL(small_avx2_f64, TARGET_AVX2, double, __builtin_fma)
#endif

/* ---- Packing and the driver, one per element type ----------------------- */

typedef void micro_f32_fn(size_t, const float *, const float *, float *,
                          size_t, int);
typedef void micro_f64_fn(size_t, const double *, const double *, double *,
                          size_t, int);

#define DEFINE_GEMM(SUF, T, FMA)                                              \
    /* Rows [i0, i0+mc) x [p0, p0+kc) of a, mr-interleaved, zero rows after  \
     * the last. */                                                          \
    static void pack_a_##SUF(const T *a, ptrdiff_t rsa, ptrdiff_t csa,       \
                             size_t mr, size_t i0, size_t mc, size_t p0,     \
                             size_t kc, T *ap)                               \
    {                                                                        \
        size_t i, p, r;                                                      \
        for (i = 0; i < mc; i += mr) {                                       \
            size_t rows = mc - i < mr ? mc - i : mr;                         \
            const T *src = a + (ptrdiff_t)(i0 + i) * rsa +                   \
                           (ptrdiff_t)p0 * csa;                              \
            if (csa == 1)                                                    \
                for (r = 0; r < rows; r++)                                   \
                    for (p = 0; p < kc; p++)                                 \
                        ap[p * mr + r] = src[(ptrdiff_t)r * rsa + p];        \
            else                                                             \
                for (p = 0; p < kc; p++)                                     \
                    for (r = 0; r < rows; r++)                               \
                        ap[p * mr + r] = src[(ptrdiff_t)r * rsa +            \
                                             (ptrdiff_t)p * csa];            \
            for (; rows < mr; rows++)                                        \
                for (p = 0; p < kc; p++)                                     \
                    ap[p * mr + rows] = 0;                                   \
            ap += kc * mr;                                                   \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* Rows [p0, p0+kc) x columns [j0, j0+nc) of b in nr-wide panels, zero   \
     * columns after the last. */                                            \
    static void pack_b_##SUF(const T *b, ptrdiff_t rsb, ptrdiff_t csb,       \
                             size_t nr, size_t p0, size_t kc, size_t j0,     \
                             size_t nc, T *bp)                               \
    {                                                                        \
        size_t j, p, q;                                                      \
        for (j = 0; j < nc; j += nr) {                                       \
            size_t cols = nc - j < nr ? nc - j : nr;                         \
            const T *src = b + (ptrdiff_t)p0 * rsb +                         \
                           (ptrdiff_t)(j0 + j) * csb;                        \
            if (csb == 1)                                                    \
                for (p = 0; p < kc; p++) {                                   \
                    memcpy(bp + p * nr, src + (ptrdiff_t)p * rsb,            \
                           cols * sizeof *bp);                               \
                    for (q = cols; q < nr; q++)                              \
                        bp[p * nr + q] = 0;                                  \
                }                                                            \
            else {                                                           \
                for (q = 0; q < cols; q++)                                   \
                    for (p = 0; p < kc; p++)                                 \
                        bp[p * nr + q] = src[(ptrdiff_t)q * csb +            \
                                             (ptrdiff_t)p * rsb];            \
                for (p = 0; p < kc; p++)                                     \
                    for (q = cols; q < nr; q++)                              \
                        bp[p * nr + q] = 0;                                  \
            }                                                                \
            bp += kc * nr;                                                   \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* The scalar loop (portable fma calls), for the sizes that the packing  \
     * does not pay for and when the panels cannot be allocated. */          \
    static void small_##SUF(size_t n, size_t k, size_t m, const T *a,        \
                            ptrdiff_t rsa, ptrdiff_t csa, const T *b,        \
                            ptrdiff_t rsb, ptrdiff_t csb, T *c, size_t ldc)  \
    {                                                                        \
        size_t i, p, j;                                                      \
        for (i = 0; i < n; i++) {                                            \
            T *ci = c + i * ldc;                                             \
            for (p = 0; p < k; p++) {                                        \
                T aip = a[(ptrdiff_t)i * rsa + (ptrdiff_t)p * csa];          \
                const T *bq = b + (ptrdiff_t)p * rsb;                        \
                if (csb == 1)                                                \
                    for (j = 0; j < m; j++)                                  \
                        ci[j] = FMA(aip, bq[j], ci[j]);                      \
                else                                                         \
                    for (j = 0; j < m; j++)                                  \
                        ci[j] = FMA(aip, bq[(ptrdiff_t)j * csb], ci[j]);     \
            }                                                                \
        }                                                                    \
    }                                                                        \
                                                                             \
    static void run_##SUF(size_t n, size_t k, size_t m, const T *a,          \
                          ptrdiff_t rsa, ptrdiff_t csa, const T *b,          \
                          ptrdiff_t rsb, ptrdiff_t csb, T *c, size_t ldc,    \
                          int set, size_t mr, size_t nr,                     \
                          micro_##SUF##_fn *micro,                           \
                          void (*small)(size_t, size_t, size_t, const T *,   \
                                        ptrdiff_t, ptrdiff_t, const T *,     \
                                        ptrdiff_t, ptrdiff_t, T *, size_t))  \
    {                                                                        \
        T *ap, *bp;                                                          \
        size_t i0, j0, p0, i, j, ncmax, mcmax, kcb;                          \
        T tile[MR_MAX * NR_MAX];                                             \
        /* set: c = a b from +0, as c += a b on a zero-filled c; the         \
           packed path starts its first pass over k from +0 */               \
        if (set && (k == 0 || n * k * m < 32768 || n < mr || m < nr))        \
            for (i = 0; i < n; i++)                                          \
                for (j = 0; j < m; j++)                                      \
                    c[i * ldc + j] = 0;                                      \
        if (n == 0 || m == 0 || k == 0)                                      \
            return;                                                          \
        if (n * k * m < 32768 || n < mr || m < nr) {                         \
            small(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);                \
            return;                                                          \
        }                                                                    \
        /* k in the fewest passes of at most KC, of equal length */          \
        kcb = (k + KC - 1) / KC;                                             \
        kcb = (k + kcb - 1) / kcb;                                           \
        ncmax = NC_BYTES / (kcb * sizeof(T)) / nr * nr;                      \
        if (ncmax > (m + nr - 1) / nr * nr)                                  \
            ncmax = (m + nr - 1) / nr * nr;                                  \
        mcmax = MC_ROWS / mr * mr;                                           \
        if (mcmax > (n + mr - 1) / mr * mr)                                  \
            mcmax = (n + mr - 1) / mr * mr;                                  \
        ap = sc__malloc(mcmax * kcb * sizeof *ap);                           \
        bp = sc__malloc(kcb * ncmax * sizeof *bp);                           \
        if (!ap || !bp) {                                                    \
            sc__free(ap);                                                    \
            sc__free(bp);                                                    \
            for (i = 0; set && i < n; i++)                                   \
                for (j = 0; j < m; j++)                                      \
                    c[i * ldc + j] = 0;                                      \
            small(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);                \
            return;                                                          \
        }                                                                    \
        for (j0 = 0; j0 < m; j0 += ncmax) {                                  \
            size_t nc = m - j0 < ncmax ? m - j0 : ncmax;                     \
            for (p0 = 0; p0 < k; p0 += kcb) {                                \
                size_t kc = k - p0 < kcb ? k - p0 : kcb;                     \
                int zero = set && p0 == 0;                                   \
                pack_b_##SUF(b, rsb, csb, nr, p0, kc, j0, nc, bp);           \
                for (i0 = 0; i0 < n; i0 += mcmax) {                          \
                    size_t mc = n - i0 < mcmax ? n - i0 : mcmax;             \
                    pack_a_##SUF(a, rsa, csa, mr, i0, mc, p0, kc, ap);       \
                    for (j = 0; j < nc; j += nr) {                           \
                        size_t ncols = nc - j < nr ? nc - j : nr;            \
                        for (i = 0; i < mc; i += mr) {                       \
                            size_t rows = mc - i < mr ? mc - i : mr, r;      \
                            T *ct = c + (i0 + i) * ldc + j0 + j;             \
                            if (rows == mr && ncols == nr) {                 \
                                micro(kc, ap + i * kc, bp + j * kc, ct,      \
                                      ldc, zero);                            \
                                continue;                                    \
                            }                                                \
                            /* an edge tile: through a full-size copy */     \
                            memset(tile, 0, sizeof tile);                    \
                            for (r = 0; r < rows && !zero; r++)              \
                                memcpy(tile + r * nr, ct + r * ldc,          \
                                       ncols * sizeof *ct);                  \
                            micro(kc, ap + i * kc, bp + j * kc, tile, nr,    \
                                  zero);                                     \
                            for (r = 0; r < rows; r++)                       \
                                memcpy(ct + r * ldc, tile + r * nr,          \
                                       ncols * sizeof *ct);                  \
                        }                                                    \
                    }                                                        \
                }                                                            \
            }                                                                \
        }                                                                    \
        sc__free(ap);                                                        \
        sc__free(bp);                                                        \
    }

DEFINE_GEMM(f32, float, fmaf)
DEFINE_GEMM(f64, double, fma)

static void gemm_f32(int level, int set, size_t n, size_t k, size_t m,
                     const float *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const float *b, ptrdiff_t rsb, ptrdiff_t csb, float *c,
                     size_t ldc)
{
    switch (level < gemm_level() ? level : gemm_level()) {
#ifdef GEMM_X86
    case 2:
        run_f32(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 12, 32,
                micro_avx512_f32, small_avx2_f32);
        return;
    case 1:
        run_f32(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 6, 16,
                micro_avx2_f32, small_avx2_f32);
        return;
#endif
    default:
        run_f32(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 4, 16,
                micro_portable_f32, small_f32);
    }
}

static void gemm_f64(int level, int set, size_t n, size_t k, size_t m,
                     const double *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const double *b, ptrdiff_t rsb, ptrdiff_t csb,
                     double *c, size_t ldc)
{
    switch (level < gemm_level() ? level : gemm_level()) {
#ifdef GEMM_X86
    case 2:
        run_f64(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 12, 16,
                micro_avx512_f64, small_avx2_f64);
        return;
    case 1:
        run_f64(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 6, 8,
                micro_avx2_f64, small_avx2_f64);
        return;
#endif
    default:
        run_f64(n, k, m, a, rsa, csa, b, rsb, csb, c, ldc, set, 4, 8,
                micro_portable_f64, small_f64);
    }
}

void sc__gemm_f32_at(int level, size_t n, size_t k, size_t m,
                     const float *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const float *b, ptrdiff_t rsb, ptrdiff_t csb, float *c,
                     size_t ldc)
{
    gemm_f32(level, 0, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

void sc__gemm_f64_at(int level, size_t n, size_t k, size_t m,
                     const double *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const double *b, ptrdiff_t rsb, ptrdiff_t csb,
                     double *c, size_t ldc)
{
    gemm_f64(level, 0, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

void sc__gemm_f32_strided(size_t n, size_t k, size_t m, const float *a,
                          ptrdiff_t rsa, ptrdiff_t csa, const float *b,
                          ptrdiff_t rsb, ptrdiff_t csb, float *c, size_t ldc)
{
    gemm_f32(2, 0, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

void sc__gemm_f32_set(size_t n, size_t k, size_t m, const float *a,
                      ptrdiff_t rsa, ptrdiff_t csa, const float *b,
                      ptrdiff_t rsb, ptrdiff_t csb, float *c, size_t ldc)
{
    gemm_f32(2, 1, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

void sc__gemm_f64_set(size_t n, size_t k, size_t m, const double *a,
                      ptrdiff_t rsa, ptrdiff_t csa, const double *b,
                      ptrdiff_t rsb, ptrdiff_t csb, double *c, size_t ldc)
{
    gemm_f64(2, 1, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

void sc__gemm_f64_strided(size_t n, size_t k, size_t m, const double *a,
                          ptrdiff_t rsa, ptrdiff_t csa, const double *b,
                          ptrdiff_t rsb, ptrdiff_t csb, double *c,
                          size_t ldc)
{
    gemm_f64(2, 0, n, k, m, a, rsa, csa, b, rsb, csb, c, ldc);
}

int sc__gemm_level(void)
{
    return gemm_level();
}

void sc__gemm_f32_ld(size_t n, size_t k, size_t m, const float *a,
                     size_t lda, const float *b, size_t ldb, float *c,
                     size_t ldc)
{
    sc__gemm_f32_strided(n, k, m, a, (ptrdiff_t)lda, 1, b, (ptrdiff_t)ldb,
                         1, c, ldc);
}

void sc__gemm_f64_ld(size_t n, size_t k, size_t m, const double *a,
                     size_t lda, const double *b, size_t ldb, double *c,
                     size_t ldc)
{
    sc__gemm_f64_strided(n, k, m, a, (ptrdiff_t)lda, 1, b, (ptrdiff_t)ldb,
                         1, c, ldc);
}

void sc__gemm_f32(size_t n, size_t k, size_t m, const float *a,
                  const float *b, float *c)
{
    sc__gemm_f32_ld(n, k, m, a, k, b, m, c, m);
}

void sc__gemm_f64(size_t n, size_t k, size_t m, const double *a,
                  const double *b, double *c)
{
    sc__gemm_f64_ld(n, k, m, a, k, b, m, c, m);
}
