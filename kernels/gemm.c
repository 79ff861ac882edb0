/* symcut — kernels: the float32 matrix product (see kernels/gemm.h).
 *
 * Packed panels and a register tile of MR x NR accumulators: B is copied
 * in panels of KC rows by NR columns (zero-padded), A in slivers of MR rows
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
#define NR 16
#define KC 256
#define MC 96   /* a multiple of MR */
#define NC 2048 /* a multiple of NR */

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

typedef float vf __attribute__((vector_size(NR * sizeof(float))));

/* ctile (MR x NR, row stride ldc) += the kc packed products of ap
 * (kc x MR) and bp (kc x NR). */
CLONES NO_CONTRACT static void micro(size_t kc, const float *ap,
                                     const float *bp, float *ctile,
                                     size_t ldc)
{
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
    vf c0, c1, c2, c3, c4, c5, b, t;
    size_t p;

#define LOAD(r) memcpy(&c##r, ctile + (r) * ldc, sizeof c##r)
#define STEP(r) (t = ap[p * MR + (r)] * b, c##r = c##r + t)
#define STORE(r) memcpy(ctile + (r) * ldc, &c##r, sizeof c##r)
    LOAD(0); LOAD(1); LOAD(2); LOAD(3); LOAD(4); LOAD(5);
    for (p = 0; p < kc; p++) {
        memcpy(&b, bp + p * NR, sizeof b);
        STEP(0); STEP(1); STEP(2); STEP(3); STEP(4); STEP(5);
    }
    STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5);
#undef LOAD
#undef STEP
#undef STORE
}

/* Rows [i0, i0+mr) x [p0, p0+kc) of a, MR-interleaved, zero rows after
 * mr. */
static void pack_a(const float *a, size_t k, size_t i0, size_t mc,
                   size_t p0, size_t kc, float *ap)
{
    size_t i, p, r;
    for (i = 0; i < mc; i += MR) {
        size_t mr = mc - i < MR ? mc - i : MR;
        for (p = 0; p < kc; p++) {
            for (r = 0; r < mr; r++)
                ap[p * MR + r] = a[(i0 + i + r) * k + p0 + p];
            for (; r < MR; r++)
                ap[p * MR + r] = 0.0f;
        }
        ap += kc * MR;
    }
}

/* Rows [p0, p0+kc) x columns [j0, j0+nc) of b in NR-wide panels, zero
 * columns after nc. */
static void pack_b(const float *b, size_t m, size_t p0, size_t kc,
                   size_t j0, size_t nc, float *bp)
{
    size_t j, p, q;
    for (j = 0; j < nc; j += NR) {
        size_t nr = nc - j < NR ? nc - j : NR;
        for (p = 0; p < kc; p++) {
            const float *src = b + (p0 + p) * m + j0 + j;
            for (q = 0; q < nr; q++)
                bp[p * NR + q] = src[q];
            for (; q < NR; q++)
                bp[p * NR + q] = 0.0f;
        }
        bp += kc * NR;
    }
}

/* The scalar loop, for the sizes that the packing does not pay for (and
 * when the panels cannot be allocated). */
NO_CONTRACT static void gemm_small(size_t n, size_t k, size_t m,
                                   const float *a, const float *b, float *c)
{
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
    size_t i, p, j;
    for (i = 0; i < n; i++) {
        float *ci = c + i * m;
        for (p = 0; p < k; p++) {
            float aip = a[i * k + p];
            const float *bp = b + p * m;
            for (j = 0; j < m; j++) {
                float prod = aip * bp[j];
                ci[j] = ci[j] + prod;
            }
        }
    }
}

void sc__gemm_f32(size_t n, size_t k, size_t m, const float *a,
                  const float *b, float *c)
{
    float *ap, *bp;
    size_t i0, j0, p0, i, j;
    float tile[MR * NR];

    if (n * k * m < 32768 || n < MR || m < NR) {
        gemm_small(n, k, m, a, b, c);
        return;
    }
    ap = sc__malloc((size_t)MC * KC * sizeof *ap);
    bp = sc__malloc((size_t)KC * NC * sizeof *bp);
    if (!ap || !bp) {
        sc__free(ap);
        sc__free(bp);
        gemm_small(n, k, m, a, b, c);
        return;
    }
    for (j0 = 0; j0 < m; j0 += NC) {
        size_t nc = m - j0 < NC ? m - j0 : NC;
        for (p0 = 0; p0 < k; p0 += KC) {
            size_t kc = k - p0 < KC ? k - p0 : KC;
            pack_b(b, m, p0, kc, j0, nc, bp);
            for (i0 = 0; i0 < n; i0 += MC) {
                size_t mc = n - i0 < MC ? n - i0 : MC;
                pack_a(a, k, i0, mc, p0, kc, ap);
                for (j = 0; j < nc; j += NR) {
                    size_t nr = nc - j < NR ? nc - j : NR;
                    for (i = 0; i < mc; i += MR) {
                        size_t mr = mc - i < MR ? mc - i : MR, r;
                        float *ct = c + (i0 + i) * m + j0 + j;
                        if (mr == MR && nr == NR) {
                            micro(kc, ap + i * kc, bp + j * kc, ct, m);
                            continue;
                        }
                        /* an edge tile: through a full-size copy */
                        memset(tile, 0, sizeof tile);
                        for (r = 0; r < mr; r++)
                            memcpy(tile + r * NR, ct + r * m,
                                   nr * sizeof *ct);
                        micro(kc, ap + i * kc, bp + j * kc, tile, NR);
                        for (r = 0; r < mr; r++)
                            memcpy(ct + r * m, tile + r * NR,
                                   nr * sizeof *ct);
                    }
                }
            }
        }
    }
    sc__free(ap);
    sc__free(bp);
}
