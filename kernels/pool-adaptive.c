/* symcut — kernels: adaptive average pooling (_adaptive_avg_pool2d and
 * its backward) in PyTorch's CPU order: output cell (i, j) averages input
 * rows [floor(i*H/oh), ceil((i+1)*H/oh)) and the same for columns; the
 * window is summed row by row in the compute type, then divided by its
 * height and then by its width (two roundings, as PyTorch); the backward
 * adds grad / kh / kw to every input of each window, cells in row-major
 * order.  Results are contiguous, channels-last when self is (the rule's
 * layout). */
#include <string.h>

#include "kernels/kernels-internal.h"

static int64_t start_index(int64_t a, int64_t b, int64_t c)
{
    return (a * b) / c;
}

static int64_t end_index(int64_t a, int64_t b, int64_t c)
{
    return ((a + 1) * b + c - 1) / c;
}

/* A 4-d tensor laid out channels-last and not contiguous? */
static bool channels_last(const sc_tensor *t)
{
    if (t->ndim != 4 || sc_tensor_is_contiguous(t))
        return false;
    return t->strides[1] == 1 && t->strides[3] == t->sizes[1] &&
           t->strides[2] == t->sizes[3] * t->sizes[1] &&
           t->strides[0] == t->sizes[2] * t->sizes[3] * t->sizes[1];
}

/* A new tensor of sizes in self's layout (channels-last or contiguous). */
static sc_status new_like_layout(const sc_tensor *self, sc_dtype d,
                                 size_t ndim, const int64_t *sizes,
                                 sc_tensor **out, sc_error *err)
{
    int64_t st[4];
    if (!channels_last(self))
        return sc__new(d, ndim, sizes, out, err);
    st[1] = 1;
    st[3] = sizes[1];
    st[2] = sizes[3] * sizes[1];
    st[0] = sizes[2] * st[2];
    return sc_tensor_new_strided(d, 4, sizes, st, out, err);
}

/* Planes (N*C or C), input H, W of self; checks the rank and sizes. */
static sc_status planes_of(sc__kernel_call *c, const sc_tensor *x,
                           const char *op, int64_t *planes, int64_t *H,
                           int64_t *W)
{
    size_t k;
    if (x->ndim != 3 && x->ndim != 4)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s: expected a 3-d or 4-d input, got %zu-d",
                             op, x->ndim);
    for (k = 1; k < x->ndim; k++)
        if (x->sizes[k] <= 0)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "%s: Expected input to have non-zero size "
                                 "for non-batch dimensions", op);
    *planes = x->sizes[x->ndim - 3] * (x->ndim == 4 ? x->sizes[0] : 1);
    *H = x->sizes[x->ndim - 2];
    *W = x->sizes[x->ndim - 1];
    return SC_OK;
}

/* The two kernels' buffers: in gathered in the compute
 * type ct, and a zeroed output of nout elements. */
static sc_status pool_buffers(sc__kernel_call *c, const sc_tensor *in,
                              sc__ctype ct, size_t nout, void **bin,
                              void **bout)
{
    SC_TRY(sc__gather(in, in->ndim, in->sizes, ct, bin, c->err));
    *bout = sc__calloc(nout + 1, sc__ctype_size(ct));
    if (!*bout)
        return sc__error_nomem(c->err);
    return SC_OK;
}

/* The result: buffer bo (compute type ct) as a tensor of sizes in self's
 * layout, handed to the call. */
static sc_status pool_result(sc__kernel_call *c, const sc_tensor *self,
                             const int64_t *sizes, sc__ctype ct,
                             const void *bo)
{
    sc_tensor *r = NULL;
    SC_TRY(new_like_layout(self, self->dtype, self->ndim, sizes, &r,
                           c->err));
    sc__scatter(r, ct, bo);
    return sc__out(c, r);
}

/* Every output cell (p, i, j) of planes of H x W inputs pooled to oh x
 * ow, in row-major order, with its window [h0, h1) x [w0, w1).  Forward
 * (back false): dst[cell] = the window of src summed row by row, divided
 * by its height, then by its width.  Backward: src[cell] divided so, added
 * to every input of the window in dst. */
#define DEFINE_POOL_CELLS(SUF, T)                                            \
    static void pool_cells_##SUF(bool back, int64_t planes, int64_t H,       \
                                 int64_t W, int64_t oh, int64_t ow,          \
                                 const T *src, T *dst)                       \
    {                                                                        \
        int64_t p, i, j, h, w;                                               \
        for (p = 0; p < planes; p++)                                         \
            for (i = 0; i < oh; i++) {                                       \
                int64_t h0 = start_index(i, H, oh), h1 = end_index(i, H, oh);\
                for (j = 0; j < ow; j++) {                                   \
                    int64_t w0 = start_index(j, W, ow);                      \
                    int64_t w1 = end_index(j, W, ow);                        \
                    size_t at = (size_t)((p * oh + i) * ow + j);             \
                    if (back) {                                              \
                        T *out = dst + p * H * W;                            \
                        T dg = src[at] / (T)(h1 - h0) / (T)(w1 - w0);        \
                        for (h = h0; h < h1; h++)                            \
                            for (w = w0; w < w1; w++)                        \
                                out[h * W + w] += dg;                        \
                    } else {                                                 \
                        const T *in = src + p * H * W;                       \
                        T s = 0;                                             \
                        for (h = h0; h < h1; h++)                            \
                            for (w = w0; w < w1; w++)                        \
                                s += in[h * W + w];                          \
                        dst[at] = s / (T)(h1 - h0) / (T)(w1 - w0);           \
                    }                                                        \
                }                                                            \
            }                                                                \
    }
DEFINE_POOL_CELLS(f32, float)
DEFINE_POOL_CELLS(f64, double)
#undef DEFINE_POOL_CELLS

static void pool_cells(sc__ctype ct, bool back, int64_t planes, int64_t H,
                       int64_t W, int64_t oh, int64_t ow, const void *src,
                       void *dst)
{
    if (ct == SC__CT_F64)
        pool_cells_f64(back, planes, H, W, oh, ow, src, dst);
    else
        pool_cells_f32(back, planes, H, W, oh, ow, src, dst);
}

/* _adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) */
sc_status sc__kernel_adaptive_avg_pool2d(sc__kernel_call *call)
{
    const sc_tensor *x;
    const int64_t *os;
    size_t n;
    int64_t planes, H, W, oh, ow, sizes[4];
    sc__ctype ct;
    void *bx = NULL, *bo = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_ADAPTIVE_AVG_POOL2D_SELF, &x));
    SC_TRY(sc__arg_ints(call, SC_KARG_ADAPTIVE_AVG_POOL2D_OUTPUT_SIZE, &n, &os));
    SC_TRY(sc__arg_float_check(call, x, "adaptive_avg_pool2d"));
    if (n != 2 || os[0] < 0 || os[1] < 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "adaptive_avg_pool2d: output_size must be 2 "
                             "non-negative sizes");
    SC_TRY(planes_of(call, x, "adaptive_avg_pool2d", &planes, &H, &W));
    oh = os[0];
    ow = os[1];
    memcpy(sizes, x->sizes, x->ndim * sizeof *sizes);
    sizes[x->ndim - 2] = oh;
    sizes[x->ndim - 1] = ow;
    ct = sc__ctype_of(x->dtype);
    SC_CHECK(pool_buffers(call, x, ct, (size_t)(planes * oh * ow), &bx, &bo));
    pool_cells(ct, false, planes, H, W, oh, ow, bx, bo);
    status = pool_result(call, x, sizes, ct, bo);
fail:
    sc__free(bx);
    sc__free(bo);
    return status;
}

/* _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) */
sc_status sc__kernel_adaptive_avg_pool2d_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *x;
    int64_t planes, H, W, oh, ow;
    size_t k;
    sc__ctype ct;
    void *bg = NULL, *bo = NULL;
    sc_status status;

    SC_TRY(sc__arg_tensor(call, SC_KARG_ADAPTIVE_AVG_POOL2D_BACKWARD_GRAD_OUTPUT,
                          &g));
    SC_TRY(sc__arg_tensor(call, SC_KARG_ADAPTIVE_AVG_POOL2D_BACKWARD_SELF, &x));
    SC_TRY(sc__arg_float_check(call, x, "adaptive_avg_pool2d_backward"));
    SC_TRY(planes_of(call, x, "adaptive_avg_pool2d_backward", &planes, &H, &W));
    if (g->ndim != x->ndim || g->dtype != x->dtype)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "adaptive_avg_pool2d_backward: grad_output and "
                             "self differ in rank or dtype");
    for (k = 0; k + 2 < x->ndim; k++)
        if (g->sizes[k] != x->sizes[k])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "adaptive_avg_pool2d_backward: grad_output "
                                 "and self differ at dim %zu", k);
    oh = g->sizes[g->ndim - 2];
    ow = g->sizes[g->ndim - 1];
    ct = sc__ctype_of(x->dtype);
    SC_CHECK(pool_buffers(call, g, ct, (size_t)(planes * H * W), &bg, &bo));
    pool_cells(ct, true, planes, H, W, oh, ow, bg, bo);
    status = pool_result(call, x, x->sizes, ct, bo);
fail:
    sc__free(bg);
    sc__free(bo);
    return status;
}
