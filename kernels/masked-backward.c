/* symcut — kernels: masked_scatter_backward, masked_scatter's source
 * gradient.
 *
 * A pure copy (no arithmetic), so its bits are PyTorch's: grad_output's
 * elements where mask is true, taken in row-major order over the
 * broadcast of grad_output and mask, then zeros, as a contiguous tensor
 * of the given sizes. */
#include <string.h>

#include "kernels/kernels-internal.h"

/* masked_scatter_backward(Tensor grad_output, Tensor mask, SymInt[]
 * sizes): more true elements than numel(sizes) is an error (PyTorch's
 * view of the selection fails the same way). */
sc_status sc__kernel_masked_scatter_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *m;
    const int64_t *sizes;
    int64_t bsizes[SC_TENSOR_MAX_DIMS];
    size_t nsizes, ndim, n, nout, i, k, next = 0, es;
    sc__ctype ct;
    char *bg = NULL, *bo = NULL;
    int64_t *bm = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SCATTER_BACKWARD_GRAD_OUTPUT,
                          &g));
    SC_TRY(sc__arg_tensor(call, SC_KARG_MASKED_SCATTER_BACKWARD_MASK, &m));
    SC_TRY(sc__arg_ints(call, SC_KARG_MASKED_SCATTER_BACKWARD_SIZES, &nsizes,
                        &sizes));
    if (m->dtype != SC_DTYPE_B8)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "masked_select: expected BoolTensor for mask");
    if (nsizes > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_LIMIT,
                             "masked_scatter_backward: %zu dims", nsizes);
    for (k = 0; k < nsizes; k++)
        if (sizes[k] < 0)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "masked_scatter_backward: negative size "
                                 "%lld at dim %zu", (long long)sizes[k], k);
    SC_TRY(sc__numel_checked(nsizes, sizes, &nout, call->err));
    SC_TRY(sc__broadcast_shape(g->ndim, g->sizes, m->ndim, m->sizes, &ndim,
                               bsizes, call->err));
    SC_TRY(sc__numel_checked(ndim, bsizes, &n, call->err));
    ct = sc__ctype_of(g->dtype);
    es = sc__ctype_size(ct);
    bo = sc__calloc(nout + 1, es);
    if (!bo)
        return sc__error_nomem(call->err);
    SC_CHECK(sc__gather(g, ndim, bsizes, ct, (void **)&bg, call->err));
    SC_CHECK(sc__gather(m, ndim, bsizes, SC__CT_I64, (void **)&bm,
                        call->err));
    for (i = 0; i < n; i++) {
        if (!bm[i])
            continue;
        if (next >= nout) {
            size_t cnt = next;
            for (; i < n; i++)
                cnt += bm[i] != 0;
            status = sc__error_set(call->err, SC_ERR_SHAPE,
                                   "masked_scatter_backward: mask selects "
                                   "%zu elements, more than the %zu of "
                                   "sizes", cnt, nout);
            goto fail;
        }
        memcpy(bo + next * es, bg + i * es, es);
        next++;
    }
    SC_CHECK(sc__new(g->dtype, nsizes, sizes, &r, call->err));
    sc__scatter(r, ct, bo);
    status = sc__out(call, r);
    r = NULL;
fail:
    sc_tensor_free(r);
    sc__free(bo);
    sc__free(bg);
    sc__free(bm);
    return status;
}
