/* symcut — kernels: the float32 and float64 matrix products under mm,
 * bmm, addmm, attention and convolution.  Included by kernels/matmul.c,
 * kernels/attention.c, kernels/conv.c (and by bench/bench_kernels.c).
 * Not installed. */
#ifndef SYMCUT_KERNELS_GEMM_H
#define SYMCUT_KERNELS_GEMM_H

#include <stddef.h>

/* c += a b for row-major contiguous a (n x k), b (k x m), c (n x m).
 * Every element of c is updated as c + a[i][0]*b[0][j] + a[i][1]*b[1][j]
 * + ..., each product rounded to float and added in increasing k (no fused
 * multiply-add), so the result is the same bits as that scalar loop on
 * every machine, whatever the blocking and the vector width. */
void sc__gemm_f32(size_t n, size_t k, size_t m, const float *a,
                  const float *b, float *c);

/* The same with row strides: a is n x k with rows lda apart, b k x m with
 * rows ldb apart, c n x m with rows ldc apart (the same bits as the
 * scalar loop, as sc__gemm_f32). */
void sc__gemm_f32_ld(size_t n, size_t k, size_t m, const float *a,
                     size_t lda, const float *b, size_t ldb, float *c,
                     size_t ldc);

/* c += a b in float64, every element the same bits as the scalar loop in
 * increasing k (products and sums rounded separately), as sc__gemm_f32. */
void sc__gemm_f64(size_t n, size_t k, size_t m, const double *a,
                  const double *b, double *c);
void sc__gemm_f64_ld(size_t n, size_t k, size_t m, const double *a,
                     size_t lda, const double *b, size_t ldb, double *c,
                     size_t ldc);

#endif
