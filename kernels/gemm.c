/* symcut — kernels: the float32 and float64 matrix products (see
 * kernels/gemm.h).
 *
 * Packed panels and a register tile of MR x NR accumulators (NR = 16
 * floats or 8 doubles): B is copied in panels of KC rows by NR columns
 * (zero-padded), A in slivers of MR rows
 * by KC (interleaved by k); the tile of C is loaded, takes KC rank-one
 * updates in increasing k and is stored back, so each element of C sees
 * the products in the order of the scalar loop.  Products and sums are
 * separate roundings: fused multiply-adds are kept out with an optimize
 * attribute (GCC) or pragma (Clang).  On x86-64 with GCC the micro-kernel
 * is cloned for AVX-512, AVX2 and the baseline, chosen at load time. */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "kernels/gemm.h"
#include "util/internal.h"

#define MR 6 /* the micro-kernel names its six rows */
#define KC 256
#define MC 96   /* a multiple of MR */
/* NC_ (columns of B per panel: a multiple of NR_) is 2048 floats or 1024
 * doubles, a panel of 2 MB. */

#if defined(__GNUC__) && !defined(__clang__)
#define NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#else
#define NO_CONTRACT
#endif
#ifndef CLONES
#define CLONES
#endif
#if defined(__clang__)
#define PRAGMA_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define PRAGMA_NO_CONTRACT
#endif

/* One gemm per element type T with NR_ columns per register tile and NC_
 * per packed panel of B: the
 * micro-kernel, the packing and the driver. */
#define DEFINE_GEMM(SUF, T, NR_, NC_)                                           \
    typedef T v##SUF __attribute__((vector_size(NR_ * sizeof(T))));          \
                                                                             \
    /* ctile (MR x NR_, row stride ldc) += the kc packed products of ap      \
     * (kc x MR) and bp (kc x NR_). */                                       \
    CLONES NO_CONTRACT static void micro_##SUF(size_t kc, const T *ap,       \
                                               const T *bp, T *ctile,        \
                                               size_t ldc)                   \
    {                                                                        \
        PRAGMA_NO_CONTRACT                                                   \
        v##SUF c0, c1, c2, c3, c4, c5, b, t;                                 \
        size_t p;                                                            \
        memcpy(&c0, ctile + 0 * ldc, sizeof c0);                             \
        memcpy(&c1, ctile + 1 * ldc, sizeof c1);                             \
        memcpy(&c2, ctile + 2 * ldc, sizeof c2);                             \
        memcpy(&c3, ctile + 3 * ldc, sizeof c3);                             \
        memcpy(&c4, ctile + 4 * ldc, sizeof c4);                             \
        memcpy(&c5, ctile + 5 * ldc, sizeof c5);                             \
        for (p = 0; p < kc; p++) {                                           \
            memcpy(&b, bp + p * NR_, sizeof b);                              \
            t = ap[p * MR + 0] * b, c0 = c0 + t;                             \
            t = ap[p * MR + 1] * b, c1 = c1 + t;                             \
            t = ap[p * MR + 2] * b, c2 = c2 + t;                             \
            t = ap[p * MR + 3] * b, c3 = c3 + t;                             \
            t = ap[p * MR + 4] * b, c4 = c4 + t;                             \
            t = ap[p * MR + 5] * b, c5 = c5 + t;                             \
        }                                                                    \
        memcpy(ctile + 0 * ldc, &c0, sizeof c0);                             \
        memcpy(ctile + 1 * ldc, &c1, sizeof c1);                             \
        memcpy(ctile + 2 * ldc, &c2, sizeof c2);                             \
        memcpy(ctile + 3 * ldc, &c3, sizeof c3);                             \
        memcpy(ctile + 4 * ldc, &c4, sizeof c4);                             \
        memcpy(ctile + 5 * ldc, &c5, sizeof c5);                             \
    }                                                                        \
                                                                             \
    /* Rows [i0, i0+mc) x [p0, p0+kc) of a (row stride lda),                 \
     * MR-interleaved, zero rows after the last. */                          \
    static void pack_a_##SUF(const T *a, size_t lda, size_t i0, size_t mc,   \
                             size_t p0, size_t kc, T *ap)                    \
    {                                                                        \
        size_t i, p, r;                                                      \
        for (i = 0; i < mc; i += MR) {                                       \
            size_t mr = mc - i < MR ? mc - i : MR;                           \
            for (p = 0; p < kc; p++) {                                       \
                for (r = 0; r < mr; r++)                                     \
                    ap[p * MR + r] = a[(i0 + i + r) * lda + p0 + p];         \
                for (; r < MR; r++)                                          \
                    ap[p * MR + r] = 0;                                      \
            }                                                                \
            ap += kc * MR;                                                   \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* Rows [p0, p0+kc) x columns [j0, j0+nc) of b (row stride ldb) in       \
     * NR_-wide panels, zero columns after the last. */                      \
    static void pack_b_##SUF(const T *b, size_t ldb, size_t p0, size_t kc,   \
                             size_t j0, size_t nc, T *bp)                    \
    {                                                                        \
        size_t j, p, q;                                                      \
        for (j = 0; j < nc; j += NR_) {                                      \
            size_t nr = nc - j < NR_ ? nc - j : NR_;                         \
            for (p = 0; p < kc; p++) {                                       \
                const T *src = b + (p0 + p) * ldb + j0 + j;                  \
                for (q = 0; q < nr; q++)                                     \
                    bp[p * NR_ + q] = src[q];                                \
                for (; q < NR_; q++)                                         \
                    bp[p * NR_ + q] = 0;                                     \
            }                                                                \
            bp += kc * NR_;                                                  \
        }                                                                    \
    }                                                                        \
                                                                             \
    /* The scalar loop, for the sizes that the packing does not pay for      \
     * (and when the panels cannot be allocated). */                         \
    NO_CONTRACT static void small_##SUF(size_t n, size_t k, size_t m,        \
                                        const T *a, size_t lda, const T *b,  \
                                        size_t ldb, T *c, size_t ldc)        \
    {                                                                        \
        PRAGMA_NO_CONTRACT                                                   \
        size_t i, p, j;                                                      \
        for (i = 0; i < n; i++) {                                            \
            T *ci = c + i * ldc;                                             \
            for (p = 0; p < k; p++) {                                        \
                T aip = a[i * lda + p];                                      \
                const T *bp = b + p * ldb;                                   \
                for (j = 0; j < m; j++) {                                    \
                    T prod = aip * bp[j];                                    \
                    ci[j] = ci[j] + prod;                                    \
                }                                                            \
            }                                                                \
        }                                                                    \
    }                                                                        \
                                                                             \
    void sc__gemm_##SUF##_ld(size_t n, size_t k, size_t m, const T *a,       \
                             size_t lda, const T *b, size_t ldb, T *c,       \
                             size_t ldc)                                     \
    {                                                                        \
        T *ap, *bp;                                                          \
        size_t i0, j0, p0, i, j;                                             \
        T tile[MR * NR_];                                                    \
        if (n * k * m < 32768 || n < MR || m < NR_) {                        \
            small_##SUF(n, k, m, a, lda, b, ldb, c, ldc);                    \
            return;                                                          \
        }                                                                    \
        ap = sc__malloc((size_t)MC * KC * sizeof *ap);                       \
        bp = sc__malloc((size_t)KC * NC_ * sizeof *bp);                      \
        if (!ap || !bp) {                                                    \
            sc__free(ap);                                                    \
            sc__free(bp);                                                    \
            small_##SUF(n, k, m, a, lda, b, ldb, c, ldc);                    \
            return;                                                          \
        }                                                                    \
        for (j0 = 0; j0 < m; j0 += NC_) {                                    \
            size_t nc = m - j0 < NC_ ? m - j0 : NC_;                         \
            for (p0 = 0; p0 < k; p0 += KC) {                                 \
                size_t kc = k - p0 < KC ? k - p0 : KC;                       \
                pack_b_##SUF(b, ldb, p0, kc, j0, nc, bp);                    \
                for (i0 = 0; i0 < n; i0 += MC) {                             \
                    size_t mc = n - i0 < MC ? n - i0 : MC;                   \
                    pack_a_##SUF(a, lda, i0, mc, p0, kc, ap);                \
                    for (j = 0; j < nc; j += NR_) {                          \
                        size_t nr = nc - j < NR_ ? nc - j : NR_;             \
                        for (i = 0; i < mc; i += MR) {                       \
                            size_t mr = mc - i < MR ? mc - i : MR, r;        \
                            T *ct = c + (i0 + i) * ldc + j0 + j;             \
                            if (mr == MR && nr == NR_) {                     \
                                micro_##SUF(kc, ap + i * kc, bp + j * kc,    \
                                            ct, ldc);                        \
                                continue;                                    \
                            }                                                \
                            /* an edge tile: through a full-size copy */     \
                            memset(tile, 0, sizeof tile);                    \
                            for (r = 0; r < mr; r++)                         \
                                memcpy(tile + r * NR_, ct + r * ldc,         \
                                       nr * sizeof *ct);                     \
                            micro_##SUF(kc, ap + i * kc, bp + j * kc, tile,  \
                                        NR_);                                \
                            for (r = 0; r < mr; r++)                         \
                                memcpy(ct + r * ldc, tile + r * NR_,         \
                                       nr * sizeof *ct);                     \
                        }                                                    \
                    }                                                        \
                }                                                            \
            }                                                                \
        }                                                                    \
        sc__free(ap);                                                        \
        sc__free(bp);                                                        \
    }

DEFINE_GEMM(f32, float, 16, 2048)
DEFINE_GEMM(f64, double, 8, 1024)

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
