/* symcut — kernels: the float32 matrix product under mm, bmm and addmm.
 * Included by kernels/matmul.c (and by bench/bench_kernels.c).  Not
 * installed. */
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

#endif
