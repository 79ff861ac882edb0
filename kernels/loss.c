/* symcut — kernels: embedding lookups and the negative log-likelihood
 * loss, with their backward.
 *
 * Indices and targets must be integer tensors; an index out of range is an
 * SC_ERR_INVALID naming the index and the range (PyTorch raises an
 * IndexError there).  Floating values are computed in the compute type
 * (float for f32/f16/bf16, double for f64) in PyTorch's order: the
 * embedding gradient adds rows in index order, the loss is summed with the
 * cascade of partial sums PyTorch's CPU kernel uses. */
#include "kernels/kernels-internal.h"

static sc_status index_check(sc__kernel_call *c, const sc_tensor *t,
                             const char *what)
{
    if (sc__dtype_is_float(t->dtype) || t->dtype == SC_DTYPE_B8 ||
        !sc_tensor_dtype_supported(t->dtype))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "%s must be an integer tensor", what);
    return SC_OK;
}

static sc_status float_only(sc__kernel_call *c, const sc_tensor *t,
                            const char *what)
{
    if (!sc__dtype_is_float(t->dtype))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "%s needs a floating tensor", what);
    return SC_OK;
}

/* ---- embedding ---------------------------------------------------------------- */

/* embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool
 * scale_grad_by_freq=False, bool sparse=False): weight's rows at indices,
 * of shape indices.shape + [weight.size(1)] (padding_idx and the flags only
 * matter to the backward; sparse=True is unsupported). */
sc_status sc__kernel_embedding(sc__kernel_call *call)
{
    const sc_tensor *w, *ix;
    bool sparse = false;
    int64_t sizes[SC_TENSOR_MAX_DIMS], rows, dim;
    size_t n, i, es;
    sc__ctype ct;
    void *bw = NULL, *bo = NULL;
    int64_t *bi = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_EMBEDDING_WEIGHT, &w));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_EMBEDDING_INDICES, &ix));
    if (!sc__arg_is_none(call, SC_KARG_EMBEDDING_SPARSE))
        SC_CHECK(sc__arg_bool(call, SC_KARG_EMBEDDING_SPARSE, &sparse));
    if (sparse)
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "embedding: sparse gradients are not supported");
    if (w->ndim != 2)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "embedding: weight must be 2-d, not %zu-d",
                             w->ndim);
    SC_CHECK(index_check(call, ix, "embedding: indices"));
    if (ix->ndim + 1 > SC_TENSOR_MAX_DIMS)
        return sc__error_set(call->err, SC_ERR_INVALID, "too many dims");
    if (!sc_tensor_dtype_supported(w->dtype))
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "embedding: unsupported dtype");
    rows = w->sizes[0];
    dim = w->sizes[1];
    n = sc_tensor_numel(ix);
    ct = sc__ctype_of(w->dtype);
    es = sc__ctype_size(ct);
    SC_CHECK(sc__gather(ix, ix->ndim, ix->sizes, SC__CT_I64, (void **)&bi,
                        call->err));
    for (i = 0; i < n; i++)
        if (bi[i] < 0 || bi[i] >= rows) {
            status = sc__error_set(call->err, SC_ERR_INVALID,
                                   "embedding: index %lld out of range "
                                   "[0, %lld) at position %zu",
                                   (long long)bi[i], (long long)rows, i);
            goto fail;
        }
    SC_CHECK(sc__gather(w, 2, w->sizes, ct, &bw, call->err));
    bo = sc__malloc(n * (size_t)dim != 0 ? n * (size_t)dim * es : 1);
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < n; i++)
        memcpy((char *)bo + i * (size_t)dim * es,
               (char *)bw + (size_t)bi[i] * (size_t)dim * es,
               (size_t)dim * es);
    memcpy(sizes, ix->sizes, ix->ndim * sizeof *sizes);
    sizes[ix->ndim] = dim;
    SC_CHECK(sc__new(w->dtype, ix->ndim + 1, sizes, &r, call->err));
    sc__scatter(r, ct, bo);
    sc__free(bi);
    sc__free(bw);
    sc__free(bo);
    return sc__out(call, r);
fail:
    sc__free(bi);
    sc__free(bw);
    sc__free(bo);
    sc_tensor_free(r);
    return status;
}

/* embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt
 * num_weights, SymInt padding_idx, bool scale_grad_by_freq): a
 * [num_weights, D] gradient; for each index position in order (skipping
 * padding_idx), row indices[i] += scale * grad_output[i], scale being 1, or
 * 1 / (the number of occurrences of that index) with scale_grad_by_freq. */
sc_status sc__kernel_embedding_dense_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *ix;
    int64_t nw, pad, dim, sizes[2];
    bool freq = false;
    size_t n, i, j;
    sc__ctype ct;
    void *bg = NULL, *bo = NULL;
    int64_t *bi = NULL, *counts = NULL;
    sc_tensor *r = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_EMBEDDING_DENSE_BACKWARD_GRAD_OUTPUT,
                            &g));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_EMBEDDING_DENSE_BACKWARD_INDICES,
                            &ix));
    SC_CHECK(sc__arg_int(call, SC_KARG_EMBEDDING_DENSE_BACKWARD_NUM_WEIGHTS,
                         &nw));
    SC_CHECK(sc__arg_int(call, SC_KARG_EMBEDDING_DENSE_BACKWARD_PADDING_IDX,
                         &pad));
    if (!sc__arg_is_none(
            call, SC_KARG_EMBEDDING_DENSE_BACKWARD_SCALE_GRAD_BY_FREQ))
        SC_CHECK(sc__arg_bool(
            call, SC_KARG_EMBEDDING_DENSE_BACKWARD_SCALE_GRAD_BY_FREQ, &freq));
    SC_CHECK(float_only(call, g, "embedding_dense_backward"));
    SC_CHECK(index_check(call, ix, "embedding_dense_backward: indices"));
    if (nw < 0)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "embedding_dense_backward: negative num_weights");
    n = sc_tensor_numel(ix);
    dim = g->ndim ? g->sizes[g->ndim - 1] : 1;
    if (g->ndim != ix->ndim + 1 || sc_tensor_numel(g) != n * (size_t)dim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "embedding_dense_backward: grad_output must have "
                             "the indices' shape plus one dimension");
    ct = sc__ctype_of(g->dtype);
    SC_CHECK(sc__gather(ix, ix->ndim, ix->sizes, SC__CT_I64, (void **)&bi,
                        call->err));
    for (i = 0; i < n; i++)
        if (bi[i] != pad && (bi[i] < 0 || bi[i] >= nw)) {
            status = sc__error_set(call->err, SC_ERR_INVALID,
                                   "embedding_dense_backward: index %lld out "
                                   "of range [0, %lld) at position %zu",
                                   (long long)bi[i], (long long)nw, i);
            goto fail;
        }
    if (freq) {
        counts = sc__calloc(nw ? (size_t)nw : 1, sizeof *counts);
        if (!counts) {
            status = sc__error_nomem(call->err);
            goto fail;
        }
        for (i = 0; i < n; i++)
            if (bi[i] != pad)
                counts[bi[i]]++;
    }
    SC_CHECK(sc__gather(g, g->ndim, g->sizes, ct, &bg, call->err));
    n = (size_t)nw * (size_t)dim;
    bo = sc__calloc(n != 0 ? n : 1, sc__ctype_size(ct));
    n = sc_tensor_numel(ix);
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < n; i++) {
        size_t row = (size_t)bi[i];
        double scale;
        if (bi[i] == pad)
            continue;
        scale = freq ? 1.0 / (double)counts[row] : 1.0;
        if (ct == SC__CT_F32) {
            float *o = (float *)bo + row * (size_t)dim,
                  *s = (float *)bg + i * (size_t)dim, a = (float)scale;
            for (j = 0; j < (size_t)dim; j++)
                o[j] = o[j] + a * s[j];
        } else {
            double *o = (double *)bo + row * (size_t)dim,
                   *s = (double *)bg + i * (size_t)dim;
            for (j = 0; j < (size_t)dim; j++)
                o[j] = o[j] + scale * s[j];
        }
    }
    sizes[0] = nw;
    sizes[1] = dim;
    SC_CHECK(sc__new(g->dtype, 2, sizes, &r, call->err));
    sc__scatter(r, ct, bo);
    sc__free(bi);
    sc__free(bg);
    sc__free(bo);
    sc__free(counts);
    return sc__out(call, r);
fail:
    sc__free(bi);
    sc__free(bg);
    sc__free(bo);
    sc__free(counts);
    sc_tensor_free(r);
    return status;
}

/* ---- nll_loss -------------------------------------------------------------------- */

enum { RED_NONE = 0, RED_MEAN = 1, RED_SUM = 2 };

/* The common arguments: input [C] with a 0-d (or [1]) target, or [N, C]
 * with target [N]; weight [C] or NULL. */
typedef struct nll_args {
    const sc_tensor *x, *target, *weight;
    int64_t reduction, ignore;
    size_t batch, classes;
    bool batched;
} nll_args;

/* The argument indices of (self, target, weight, reduction, ignore_index);
 * NLL_INDICES(K) for kernel K. */
typedef struct nll_indices {
    size_t self, target, weight, reduction, ignore_index;
} nll_indices;
#define NLL_INDICES(K)                                                       \
    ((nll_indices){SC_KARG_##K##_SELF, SC_KARG_##K##_TARGET,                 \
                   SC_KARG_##K##_WEIGHT, SC_KARG_##K##_REDUCTION,            \
                   SC_KARG_##K##_IGNORE_INDEX})

static sc_status nll_check(sc__kernel_call *c, nll_args *a, nll_indices ix)
{
    SC_TRY(sc__arg_tensor(c, ix.self, &a->x));
    SC_TRY(sc__arg_tensor(c, ix.target, &a->target));
    SC_TRY(sc__arg_opt_tensor(c, ix.weight, &a->weight));
    SC_TRY(sc__arg_int(c, ix.reduction, &a->reduction));
    SC_TRY(sc__arg_int(c, ix.ignore_index, &a->ignore));
    SC_TRY(float_only(c, a->x, "nll_loss"));
    SC_TRY(index_check(c, a->target, "nll_loss: target"));
    if (a->reduction < RED_NONE || a->reduction > RED_SUM)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "nll_loss: reduction %lld is not 0 (none), 1 "
                             "(mean) or 2 (sum)",
                             (long long)a->reduction);
    if (a->x->ndim < 1 || a->x->ndim > 2)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "nll_loss: input must be 1-d or 2-d, not %zu-d",
                             a->x->ndim);
    a->batched = a->x->ndim == 2;
    a->batch = a->batched ? (size_t)a->x->sizes[0] : 1;
    a->classes = (size_t)a->x->sizes[a->x->ndim - 1];
    if (a->batched ? a->target->ndim != 1 ||
                         (size_t)a->target->sizes[0] != a->batch
                   : a->target->ndim > 1 || sc_tensor_numel(a->target) != 1)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "nll_loss: target shape does not match the "
                             "input's batch");
    if (a->weight && (a->weight->ndim != 1 ||
                      (size_t)a->weight->sizes[0] != a->classes))
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "nll_loss: weight must be [%zu]", a->classes);
    return SC_OK;
}

/* The targets (checked against the class count, ignore_index allowed) and
 * the class weights in double (NULL without weight). */
static sc_status nll_gather(sc__kernel_call *c, const nll_args *a,
                            int64_t **tg, double **w)
{
    size_t i;
    sc_status status;
    *tg = NULL;
    *w = NULL;
    SC_CHECK(sc__gather(a->target, a->target->ndim, a->target->sizes,
                        SC__CT_I64, (void **)tg, c->err));
    for (i = 0; i < a->batch; i++)
        if ((*tg)[i] != a->ignore &&
            ((*tg)[i] < 0 || (uint64_t)(*tg)[i] >= a->classes)) {
            status = sc__error_set(c->err, SC_ERR_INVALID,
                                   "nll_loss: target %lld is out of bounds "
                                   "[0, %zu) at position %zu",
                                   (long long)(*tg)[i], a->classes, i);
            goto fail;
        }
    if (a->weight)
        SC_CHECK(sc__gather(a->weight, 1, a->weight->sizes, SC__CT_F64,
                            (void **)w, c->err));
    return SC_OK;
fail:
    sc__free(*tg);
    sc__free(*w);
    *tg = NULL;
    *w = NULL;
    return status;
}

/* The cascade of PyTorch's nll_loss: the running partial sum in level 0 is
 * folded upwards whenever the sample index has zero low bits, which keeps
 * the rounding error logarithmic in the batch. */
#define CASCADE_LEVELS 8
#define DEFINE_CASCADE(name, T)                                              \
    static void name(const nll_args *a, const T *x, const int64_t *tg,     \
                     const double *w, T *loss, T *total)                    \
    {                                                                        \
        T lsum[CASCADE_LEVELS] = {0}, wsum[CASCADE_LEVELS] = {0};            \
        size_t b, ignored = 0, log2b = 0;                                    \
        int j, power, levels = CASCADE_LEVELS;                               \
        uint64_t mask;                                                       \
        while (((size_t)1 << log2b) < a->batch)                              \
            log2b++;                                                         \
        power = (int)(log2b / CASCADE_LEVELS) > 4                            \
                    ? (int)(log2b / CASCADE_LEVELS) : 4;                     \
        mask = ((uint64_t)1 << power) - 1;                                   \
        for (b = 0; b < a->batch; b++) {                                     \
            if (tg[b] == a->ignore) {                                        \
                ignored++;                                                   \
                continue;                                                    \
            }                                                                \
            if (w) {                                                         \
                T wv = (T)w[tg[b]];                                          \
                lsum[0] -= x[b * a->classes + (size_t)tg[b]] * wv;           \
                wsum[0] += wv;                                               \
            } else {                                                         \
                lsum[0] -= x[b * a->classes + (size_t)tg[b]];                \
            }                                                                \
            for (j = 0; j + 1 < levels; j++) {                               \
                if (((uint64_t)b & (mask << (j * power))) != 0)              \
                    break;                                                   \
                wsum[j + 1] += wsum[j];                                      \
                lsum[j + 1] += lsum[j];                                      \
                wsum[j] = 0;                                                 \
                lsum[j] = 0;                                                 \
            }                                                                \
        }                                                                    \
        *loss = 0;                                                           \
        *total = w ? 0 : (T)(a->batch - ignored);                            \
        for (j = 0; j < levels; j++) {                                       \
            *loss += lsum[j];                                                \
            if (w)                                                           \
                *total += wsum[j];                                           \
        }                                                                    \
        if (a->reduction == RED_MEAN)                                        \
            *loss /= *total;                                                 \
    }
DEFINE_CASCADE(cascade_f32, float)
DEFINE_CASCADE(cascade_f64, double)

/* nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int
 * reduction, SymInt ignore_index) -> (output, total_weight).  reduction
 * 0 (none): output [N] (0-d for a 1-d input), -w[t] * x[i][t], 0 where the
 * target is ignore_index; total_weight 0.  1 (mean) and 2 (sum): a 0-d
 * loss, the mean dividing by the total weight of the non-ignored targets
 * (NaN when all are ignored, as PyTorch); total_weight that sum. */
sc_status sc__kernel_nll_loss_forward(sc__kernel_call *call)
{
    nll_args a;
    int64_t *tg = NULL;
    double *w = NULL;
    void *bx = NULL, *bo = NULL;
    sc__ctype ct;
    sc_tensor *outs[2] = {NULL, NULL};
    size_t i;
    sc_status status;

    SC_CHECK(nll_check(call, &a, NLL_INDICES(NLL_LOSS_FORWARD)));
    SC_CHECK(nll_gather(call, &a, &tg, &w));
    ct = sc__ctype_of(a.x->dtype);
    SC_CHECK(sc__gather(a.x, a.x->ndim, a.x->sizes, ct, &bx, call->err));
    bo = sc__calloc(a.batch ? a.batch : 1, 8);
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    if (a.reduction == RED_NONE && a.batched) {
        for (i = 0; i < a.batch; i++) {
            if (tg[i] == a.ignore)
                continue;
            if (ct == SC__CT_F32) {
                float wv = w ? (float)w[tg[i]] : 1.0f;
                ((float *)bo)[i] =
                    -((float *)bx)[i * a.classes + (size_t)tg[i]] * wv;
            } else {
                double wv = w ? w[tg[i]] : 1.0;
                ((double *)bo)[i] =
                    -((double *)bx)[i * a.classes + (size_t)tg[i]] * wv;
            }
        }
        SC_CHECK(sc__new(a.x->dtype, 1, a.x->sizes, &outs[0], call->err));
        SC_CHECK(sc__new(a.x->dtype, 0, NULL, &outs[1], call->err));
        sc__scatter(outs[0], ct, bo);
    } else if (a.batched) {
        SC_CHECK(sc__new(a.x->dtype, 0, NULL, &outs[0], call->err));
        SC_CHECK(sc__new(a.x->dtype, 0, NULL, &outs[1], call->err));
        if (ct == SC__CT_F32) {
            float loss, total;
            cascade_f32(&a, bx, tg, w, &loss, &total);
            sc__store_f32(sc_tensor_data(outs[0]), a.x->dtype, loss);
            sc__store_f32(sc_tensor_data(outs[1]), a.x->dtype, total);
        } else {
            double loss, total;
            cascade_f64(&a, bx, tg, w, &loss, &total);
            *(double *)sc_tensor_data(outs[0]) = loss;
            *(double *)sc_tensor_data(outs[1]) = total;
        }
    } else {
        /* one sample: the loss is 0-d whatever the reduction */
        double wv = 0, loss = 0;
        if (tg[0] != a.ignore) {
            wv = w ? w[tg[0]] : 1.0;
            if (ct == SC__CT_F32)
                loss = -((float *)bx)[tg[0]] * (float)wv;
            else
                loss = -((double *)bx)[tg[0]] * wv;
        }
        if (a.reduction == RED_MEAN)
            loss = ct == SC__CT_F32 ? (double)((float)loss / (float)wv)
                                    : loss / wv;
        SC_CHECK(sc__new(a.x->dtype, 0, NULL, &outs[0], call->err));
        SC_CHECK(sc__new(a.x->dtype, 0, NULL, &outs[1], call->err));
        sc__store_f64(sc_tensor_data(outs[0]), a.x->dtype, loss);
        sc__store_f64(sc_tensor_data(outs[1]), a.x->dtype,
                      a.reduction == RED_NONE ? 0 : wv);
    }
    sc__free(tg);
    sc__free(w);
    sc__free(bx);
    sc__free(bo);
    return sc__out_n(call, 2, outs);
fail:
    sc__free(tg);
    sc__free(w);
    sc__free(bx);
    sc__free(bo);
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    return status;
}

/* nll_loss_backward(Tensor grad_output, Tensor self, Tensor target,
 * Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight):
 * zeros like self except grad_input[i][t_i] = w[t_i] * -g, where g is
 * grad_output[i] (none) or the 0-d grad_output (sum), divided by
 * total_weight (mean). */
sc_status sc__kernel_nll_loss_backward(sc__kernel_call *call)
{
    nll_args a;
    const sc_tensor *go, *tw;
    int64_t *tg = NULL;
    double *w = NULL, *bgo = NULL, total;
    void *bo = NULL;
    sc__ctype ct;
    sc_tensor *r = NULL;
    size_t i;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NLL_LOSS_BACKWARD_GRAD_OUTPUT, &go));
    SC_CHECK(nll_check(call, &a, NLL_INDICES(NLL_LOSS_BACKWARD)));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NLL_LOSS_BACKWARD_TOTAL_WEIGHT,
                            &tw));
    if (sc_tensor_numel(tw) != 1)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "nll_loss_backward: total_weight must have one "
                             "element");
    if (a.reduction == RED_NONE && a.batched
            ? go->ndim != 1 || (size_t)go->sizes[0] != a.batch
            : sc_tensor_numel(go) != 1)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "nll_loss_backward: grad_output has the wrong "
                             "shape for this reduction");
    total = sc_tensor_item_double(tw, 0);
    SC_CHECK(nll_gather(call, &a, &tg, &w));
    SC_CHECK(sc__gather(go, go->ndim, go->sizes, SC__CT_F64, (void **)&bgo,
                        call->err));
    ct = sc__ctype_of(a.x->dtype);
    bo = sc__calloc(a.batch * a.classes != 0 ? a.batch * a.classes : 1,
                    sc__ctype_size(ct));
    if (!bo) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < a.batch; i++) {
        size_t t;
        double g = a.reduction == RED_NONE && a.batched ? bgo[i] : bgo[0];
        if (tg[i] == a.ignore)
            continue;
        t = (size_t)tg[i];
        if (ct == SC__CT_F32) {
            float gf = (float)g;
            gf = -(a.reduction == RED_MEAN ? gf / (float)total : gf);
            ((float *)bo)[i * a.classes + t] = w ? (float)w[t] * gf : gf;
        } else {
            g = -(a.reduction == RED_MEAN ? g / total : g);
            ((double *)bo)[i * a.classes + t] = w ? w[t] * g : g;
        }
    }
    SC_CHECK(sc__new(a.x->dtype, a.x->ndim, a.x->sizes, &r, call->err));
    sc__scatter(r, ct, bo);
    sc__free(tg);
    sc__free(w);
    sc__free(bgo);
    sc__free(bo);
    return sc__out(call, r);
fail:
    sc__free(tg);
    sc__free(w);
    sc__free(bgo);
    sc__free(bo);
    sc_tensor_free(r);
    return status;
}
