/* symcut — kernels: the float32 and float64 matrix products under mm,
 * bmm, addmm and convolution.  Included by kernels/matmul.c,
 * kernels/conv.c (and by bench/bench_kernels.c and tests/check_gemm.c).
 * Not installed.  (kernels/attention.c computes its block products with
 * its own fused chains, in torch's order.)
 *
 * The summation contract, the same for every entry point, every size,
 * every blocking and every machine: each element of c is updated as a
 * chain of fused multiply-adds in increasing k,
 *
 *     c = fma(a[i][k-1], b[k-1][j], ... fma(a[i][1], b[1][j],
 *             fma(a[i][0], b[0][j], c)) ...)
 *
 * (each step one rounding of the exact a*b + c, as C's fmaf / fma).  The
 * register-tiled kernels (AVX-512, AVX2 + FMA, or portable code calling
 * fmaf) and the scalar loop for small sizes all compute exactly this, so a
 * product gives the same bits whichever path or call site computes it:
 * the joint graph and the forward + backward pair stay bit-exact. */
#ifndef SYMCUT_KERNELS_GEMM_H
#define SYMCUT_KERNELS_GEMM_H

#include <stddef.h>

/* c += a b for row-major contiguous a (n x k), b (k x m), c (n x m). */
void sc__gemm_f32(size_t n, size_t k, size_t m, const float *a,
                  const float *b, float *c);

/* The same with row strides: a is n x k with rows lda apart, b k x m with
 * rows ldb apart, c n x m with rows ldc apart. */
void sc__gemm_f32_ld(size_t n, size_t k, size_t m, const float *a,
                     size_t lda, const float *b, size_t ldb, float *c,
                     size_t ldc);

/* The same with any element strides of a and b (in elements, may be
 * negative): a[i][p] at a[i * rsa + p * csa], b[p][j] at
 * b[p * rsb + j * csb] (a transposed view is csa == 1 swapped for rsa ==
 * 1, read in place: the operands are only ever read while packing). */
void sc__gemm_f32_strided(size_t n, size_t k, size_t m, const float *a,
                          ptrdiff_t rsa, ptrdiff_t csa, const float *b,
                          ptrdiff_t rsb, ptrdiff_t csb, float *c,
                          size_t ldc);

/* c = a b: c's old contents are never read (its pages are only
 * written), the same bits as sc__gemm_f32_strided on a zero-filled c. */
void sc__gemm_f32_set(size_t n, size_t k, size_t m, const float *a,
                      ptrdiff_t rsa, ptrdiff_t csa, const float *b,
                      ptrdiff_t rsb, ptrdiff_t csb, float *c, size_t ldc);

/* c += a b in float64 under the same contract (fma). */
void sc__gemm_f64(size_t n, size_t k, size_t m, const double *a,
                  const double *b, double *c);
void sc__gemm_f64_ld(size_t n, size_t k, size_t m, const double *a,
                     size_t lda, const double *b, size_t ldb, double *c,
                     size_t ldc);
void sc__gemm_f64_strided(size_t n, size_t k, size_t m, const double *a,
                          ptrdiff_t rsa, ptrdiff_t csa, const double *b,
                          ptrdiff_t rsb, ptrdiff_t csb, double *c,
                          size_t ldc);
void sc__gemm_f64_set(size_t n, size_t k, size_t m, const double *a,
                      ptrdiff_t rsa, ptrdiff_t csa, const double *b,
                      ptrdiff_t rsb, ptrdiff_t csb, double *c, size_t ldc);

/* The kernels by level: 0 portable (fmaf / fma calls, 4 x 16 floats),
 * 1 AVX2 + FMA (6 x 16), 2 AVX-512 (12 x 32).  sc__gemm_level() is the
 * best this machine runs (the one the entry points above use);
 * sc__gemm_kernel_name names a level ("portable", "avx2-fma", "avx512").
 * sc__gemm_f32_at / sc__gemm_f64_at run the strided product on the kernel
 * of `level` (at most the machine's best): for tests and benchmarks that
 * check that every kernel gives the same bits. */
int sc__gemm_level(void);
const char *sc__gemm_kernel_name(int level);
void sc__gemm_f32_at(int level, size_t n, size_t k, size_t m,
                     const float *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const float *b, ptrdiff_t rsb, ptrdiff_t csb, float *c,
                     size_t ldc);
void sc__gemm_f64_at(int level, size_t n, size_t k, size_t m,
                     const double *a, ptrdiff_t rsa, ptrdiff_t csa,
                     const double *b, ptrdiff_t rsb, ptrdiff_t csb,
                     double *c, size_t ldc);

#endif
