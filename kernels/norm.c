/* symcut — kernels: batch norm, group norm and layer norm with their
 * backward.
 *
 * Statistics are accumulated in double in row-major order (PyTorch's CPU
 * kernels accumulate float in double too); the normalisation itself
 * follows PyTorch's formula shapes in the compute type: batch norm folds
 * each channel into out = x * alpha + beta with alpha = invstd * weight and
 * beta = bias - mean * alpha.  The backward passes are computed in double
 * and rounded once, like native_layer_norm_backward. */
#include "kernels/kernels-internal.h"

static sc_status float_input(sc__kernel_call *c, const sc_tensor *x,
                             const char *what)
{
    if (!sc__dtype_is_float(x->dtype))
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "%s needs a floating input", what);
    return SC_OK;
}

/* An optional per-channel [C] parameter gathered in double (NULL if
 * absent). */
static sc_status channel_param(sc__kernel_call *c, const sc_tensor *p,
                               int64_t C, const char *what, double **out)
{
    *out = NULL;
    if (!p)
        return SC_OK;
    if (p->ndim != 1 || p->sizes[0] != C)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s must be [%lld]", what, (long long)C);
    return sc__gather(p, 1, p->sizes, SC__CT_F64, (void **)out, c->err);
}

/* Write n doubles into an argument tensor in place (the ops that mutate
 * their arguments). */
static sc_status write_arg(sc__kernel_call *c, const sc_tensor *t,
                           const double *v)
{
    sc_tensor *view = NULL;
    SC_TRY(sc_tensor_alias(t, &view, c->err));
    sc__scatter(view, SC__CT_F64, v);
    sc_tensor_free(view);
    return SC_OK;
}

/* Input [N, C, *] as N x C x plane. */
static sc_status nc_split(sc__kernel_call *c, const sc_tensor *x,
                          const char *what, size_t *N, size_t *C,
                          size_t *plane)
{
    size_t k;
    if (x->ndim < 2)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s: input must be [N, C, ...], not %zu-d",
                             what, x->ndim);
    *N = (size_t)x->sizes[0];
    *C = (size_t)x->sizes[1];
    *plane = 1;
    for (k = 2; k < x->ndim; k++)
        *plane *= (size_t)x->sizes[k];
    return SC_OK;
}

/* ---- batch norm ---------------------------------------------------------------- */

/* native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor?
 * running_mean, Tensor? running_var, bool training, float momentum, float
 * eps) -> (out, save_mean, save_invstd).
 *
 * Training: per channel c, the batch mean and biased variance over N and
 * the spatial dims; save_mean [C], save_invstd = 1 / sqrt(var + eps) [C];
 * running_mean and running_var, when given, are UPDATED IN PLACE (PyTorch
 * 1.13 keeps this op mutating): r = momentum * stat + (1 - momentum) * r,
 * with the unbiased variance for running_var.  Eval: the running
 * statistics normalise, save_mean and save_invstd are empty [0]. */
/* The argument indices of a batch norm (the same in
 * _native_batch_norm_legit_functional as in native_batch_norm). */
_Static_assert(SC_KARG_NATIVE_BATCH_NORM_INPUT ==
                       SC_KARG_NATIVE_BATCH_NORM_FUNCTIONAL_INPUT &&
                   SC_KARG_NATIVE_BATCH_NORM_RUNNING_VAR ==
                       SC_KARG_NATIVE_BATCH_NORM_FUNCTIONAL_RUNNING_VAR &&
                   SC_KARG_NATIVE_BATCH_NORM_EPS ==
                       SC_KARG_NATIVE_BATCH_NORM_FUNCTIONAL_EPS,
               "the batch norms read their arguments at the same indices");

static sc_status batch_norm_run(sc__kernel_call *call, bool functional);

sc_status sc__kernel_native_batch_norm(sc__kernel_call *call)
{
    return batch_norm_run(call, false);
}

/* _native_batch_norm_legit_functional: native_batch_norm without writing
 * the running statistics; their new values are results 3 and 4. */
sc_status sc__kernel_native_batch_norm_functional(sc__kernel_call *call)
{
    return batch_norm_run(call, true);
}

/* One channel of a float (f32, f16, bf16) batch norm, in place in bx (the
 * input gathered in double, each value a float), computed as PyTorch's CPU
 * kernel computes it (bit for bit against torch 2.13 on f32, checked by
 * tests/check_kernels.c's torch rows):
 *   mean = (float)(sum of x in double / count)
 *   var_sum = (float)(sum in double of the float (x - mean)^2)
 *   (a plane of one element, input [N, C]: PyTorch's channels-last path,
 *   mean = (float sum of x) / (float)count, var_sum = the float sum of
 *   fmaf(x - mean, x - mean, var_sum) in row order)
 *   invstd = (float)(1 / sqrt((double)(var_sum / (float)count) + eps))
 *     (eval: 1.0f / sqrtf(running_var + (float)eps), mean = running_mean)
 *   running_mean = (float)m * mean + (float)(1 - m) * running_mean (float)
 *   running_var = fmaf((float)m, var_sum / (float)(count - 1),
 *                      (float)(1 - m) * running_var)
 *   alpha = invstd * weight, beta = fmaf(-mean, alpha, bias),
 *   out = fmaf(x, alpha, beta)  (the fused multiply-add of the vectorized
 *                                kernel) */
static void batch_norm_channel_f32(double *bx, size_t N, size_t C, size_t P,
                                   size_t c, bool training, double momentum,
                                   double eps, const double *bw,
                                   const double *bb, double *brm, double *brv,
                                   double *mean_out, double *invstd_out)
{
    size_t n, k, cnt = N * P;
    float mu, is, alpha, beta;
    if (training) {
        double s = 0, q = 0;
        float qf, mf = (float)momentum, om = (float)(1 - momentum);
        if (P == 1) {
            /* [N, C]: PyTorch's channels-last path, float sums */
            float sf = 0, qs = 0;
            for (n = 0; n < N; n++)
                sf += (float)bx[n * C + c];
            mu = sf / (float)cnt;
            for (n = 0; n < N; n++) {
                float d = (float)bx[n * C + c] - mu;
                qs = fmaf(d, d, qs);
            }
            qf = qs;
        } else {
            for (n = 0; n < N; n++)
                for (k = 0; k < P; k++)
                    s += bx[(n * C + c) * P + k];
            mu = (float)(s / (double)cnt);
            for (n = 0; n < N; n++)
                for (k = 0; k < P; k++) {
                    float d = (float)bx[(n * C + c) * P + k] - mu;
                    float d2 = d * d;
                    q += d2;
                }
            qf = (float)q;
        }
        is = (float)(1.0 / sqrt((double)(qf / (float)cnt) + eps));
        if (brm) {
            float a = mf * mu, b = om * (float)brm[c];
            brm[c] = a + b;
        }
        if (brv) {
            float u = qf / (float)(cnt - 1), b = om * (float)brv[c];
            brv[c] = fmaf(mf, u, b);
        }
    } else {
        mu = (float)brm[c];
        is = 1.0f / sqrtf((float)brv[c] + (float)eps);
    }
    alpha = is * (bw ? (float)bw[c] : 1.0f);
    beta = fmaf(-mu, alpha, bb ? (float)bb[c] : 0.0f);
    for (n = 0; n < N; n++)
        for (k = 0; k < P; k++) {
            double *v = &bx[(n * C + c) * P + k];
            *v = fmaf((float)*v, alpha, beta);
        }
    *mean_out = mu;
    *invstd_out = is;
}

/* The dtype of save_mean and save_invstd, as PyTorch's CPU kernel makes
 * them: float32 for a reduced-precision (bf16, f16) input whose defined
 * parameters (weight, bias, running statistics; at least one) are float32
 * -- PyTorch's mixed-type batch norm, which keeps float statistics; else
 * the input's dtype.  PyTorch 2.13's meta function, and so the graphs'
 * annotations, say the input's dtype in the mixed case too; the
 * interpreter accepts float32 there (doc/interp.md). */
static sc_dtype stat_dtype_of(const sc_tensor *x, const sc_tensor *w,
                              const sc_tensor *b, const sc_tensor *rm,
                              const sc_tensor *rv)
{
    const sc_tensor *p[4];
    size_t k;
    bool any = false;
    p[0] = w;
    p[1] = b;
    p[2] = rm;
    p[3] = rv;
    if (x->dtype != SC_DTYPE_BF16 && x->dtype != SC_DTYPE_F16)
        return x->dtype;
    for (k = 0; k < 4; k++) {
        if (!p[k])
            continue;
        if (p[k]->dtype != SC_DTYPE_F32)
            return x->dtype;
        any = true;
    }
    return any ? SC_DTYPE_F32 : x->dtype;
}

static sc_status batch_norm_run(sc__kernel_call *call, bool functional)
{
    const sc_tensor *x, *w, *b, *rm, *rv;
    bool training;
    double momentum, eps;
    size_t N = 0, C = 0, P = 0, n, c, k, cnt;
    double *bw = NULL, *bb = NULL, *brm = NULL, *brv = NULL, *bx = NULL,
           *mean = NULL, *invstd = NULL;
    int64_t csz, zero = 0;
    sc_tensor *outs[5] = {NULL, NULL, NULL, NULL, NULL};
    sc_dtype stat_dtype;
    bool f32;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_BATCH_NORM_INPUT, &x));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_BATCH_NORM_WEIGHT, &w));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_BATCH_NORM_BIAS, &b));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_BATCH_NORM_RUNNING_MEAN,
                                &rm));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_BATCH_NORM_RUNNING_VAR,
                                &rv));
    SC_CHECK(sc__arg_bool(call, SC_KARG_NATIVE_BATCH_NORM_TRAINING,
                          &training));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_BATCH_NORM_MOMENTUM,
                            &momentum));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_BATCH_NORM_EPS, &eps));
    SC_CHECK(float_input(call, x, "batch_norm"));
    SC_CHECK(nc_split(call, x, "batch_norm", &N, &C, &P));
    csz = (int64_t)C;
    cnt = N * P;
    if (functional && (!rm || !rv))
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "batch_norm: the functional form needs "
                             "running_mean and running_var");
    if (!training && (!rm || !rv))
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "batch_norm: eval mode needs running_mean and "
                             "running_var");
    if (training && cnt <= 1 && C > 0)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "batch_norm: expected more than 1 value per "
                             "channel when training");
    if ((rm && !sc__dtype_is_float(rm->dtype)) ||
        (rv && !sc__dtype_is_float(rv->dtype)))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "batch_norm: running statistics must be "
                             "floating");
    SC_CHECK(channel_param(call, w, csz, "batch_norm weight", &bw));
    SC_CHECK(channel_param(call, b, csz, "batch_norm bias", &bb));
    SC_CHECK(channel_param(call, rm, csz, "batch_norm running_mean", &brm));
    SC_CHECK(channel_param(call, rv, csz, "batch_norm running_var", &brv));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    mean = sc__calloc(C ? C : 1, sizeof *mean);
    invstd = sc__calloc(C ? C : 1, sizeof *invstd);
    if (!mean || !invstd) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    f32 = x->dtype != SC_DTYPE_F64;
    stat_dtype = stat_dtype_of(x, w, b, rm, rv);
    for (c = 0; c < C; c++) {
        if (f32) {
            batch_norm_channel_f32(bx, N, C, P, c, training, momentum, eps,
                                   bw, bb, brm, brv, &mean[c], &invstd[c]);
            continue;
        }
        if (training) {
            double s = 0, q = 0, mu, var;
            for (n = 0; n < N; n++)
                for (k = 0; k < P; k++)
                    s += bx[(n * C + c) * P + k];
            mu = s / (double)cnt;
            for (n = 0; n < N; n++)
                for (k = 0; k < P; k++) {
                    double d = bx[(n * C + c) * P + k] - mu;
                    q += d * d;
                }
            var = q / (double)cnt;
            mean[c] = mu;
            invstd[c] = 1.0 / sqrt(var + eps);
            if (brm)
                brm[c] = momentum * mu + (1 - momentum) * brm[c];
            if (brv)
                brv[c] = momentum * (q / (double)(cnt - 1)) +
                         (1 - momentum) * brv[c];
        } else {
            mean[c] = brm[c];
            invstd[c] = 1.0 / sqrt(brv[c] + eps);
        }
        {
            double alpha = invstd[c] * (bw ? bw[c] : 1.0);
            double beta = (bb ? bb[c] : 0.0) - mean[c] * alpha;
            for (n = 0; n < N; n++)
                for (k = 0; k < P; k++) {
                    double *v = &bx[(n * C + c) * P + k];
                    *v = *v * alpha + beta;
                }
        }
    }
    SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &outs[0], call->err));
    SC_CHECK(sc__new(stat_dtype, 1, training ? &csz : &zero, &outs[1],
                     call->err));
    SC_CHECK(sc__new(stat_dtype, 1, training ? &csz : &zero, &outs[2],
                     call->err));
    sc__scatter(outs[0], SC__CT_F64, bx);
    if (training) {
        sc__scatter(outs[1], SC__CT_F64, mean);
        sc__scatter(outs[2], SC__CT_F64, invstd);
    }
    if (functional) {
        /* the new running statistics (the old ones in eval mode) */
        SC_CHECK(sc__new(rm->dtype, 1, &csz, &outs[3], call->err));
        SC_CHECK(sc__new(rv->dtype, 1, &csz, &outs[4], call->err));
        sc__scatter(outs[3], SC__CT_F64, brm);
        sc__scatter(outs[4], SC__CT_F64, brv);
    } else if (training) {
        if (rm)
            SC_CHECK(write_arg(call, rm, brm));
        if (rv)
            SC_CHECK(write_arg(call, rv, brv));
    }
    status = sc__out_n(call, functional ? 5 : 3, outs);
fail:
    for (c = 0; c < 5; c++)
        sc_tensor_free(outs[c]);
    sc__free(bw);
    sc__free(bb);
    sc__free(brm);
    sc__free(brv);
    sc__free(bx);
    sc__free(mean);
    sc__free(invstd);
    return status;
}

/* native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor?
 * weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean,
 * Tensor? save_invstd, bool train, float eps, bool[3] output_mask) ->
 * (grad_input, grad_weight, grad_bias).  Train: the saved batch
 * statistics, dx = (dy - mean(dy) - xhat * mean(dy * xhat)) * invstd * w;
 * eval: the running ones, dx = dy * invstd * w.  grad_weight = sum(dy *
 * xhat), grad_bias = sum(dy), [C] in weight's dtype (input's without
 * weight). */
sc_status sc__kernel_native_batch_norm_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *x, *w, *rm, *rv, *sm, *si, *stat_m, *stat_v;
    bool train, mask[3];
    double eps;
    size_t N = 0, C = 0, P = 0, n, c, k, cnt;
    double *bg = NULL, *bx = NULL, *bw = NULL, *bm = NULL, *bv = NULL,
           *gw = NULL, *gb = NULL;
    int64_t csz;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    sc_dtype pd;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_GRAD_OUT,
                            &g));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_INPUT,
                            &x));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_BATCH_NORM_BACKWARD_WEIGHT,
                                &w));
    SC_CHECK(sc__arg_opt_tensor(
        call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_RUNNING_MEAN, &rm));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_BATCH_NORM_BACKWARD_RUNNING_VAR,
                                &rv));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_BATCH_NORM_BACKWARD_SAVE_MEAN,
                                &sm));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_BATCH_NORM_BACKWARD_SAVE_INVSTD,
                                &si));
    SC_CHECK(sc__arg_bool(call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_TRAIN,
                          &train));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_EPS,
                            &eps));
    SC_CHECK(sc__arg_mask(call, SC_KARG_NATIVE_BATCH_NORM_BACKWARD_OUTPUT_MASK,
                          3, mask));
    SC_CHECK(float_input(call, x, "batch_norm_backward"));
    SC_CHECK(nc_split(call, x, "batch_norm_backward", &N, &C, &P));
    if (!sc_tensor_same_shape(g, x))
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "batch_norm_backward: grad_out and input shapes "
                             "differ");
    stat_m = train ? sm : rm;
    stat_v = train ? si : rv;
    if (!stat_m || !stat_v)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "batch_norm_backward: %s needs %s",
                             train ? "train mode" : "eval mode",
                             train ? "save_mean and save_invstd"
                                   : "running_mean and running_var");
    csz = (int64_t)C;
    cnt = N * P;
    SC_CHECK(channel_param(call, w, csz, "batch_norm weight", &bw));
    SC_CHECK(channel_param(call, stat_m, csz, "batch_norm mean", &bm));
    SC_CHECK(channel_param(call, stat_v, csz, "batch_norm invstd/var", &bv));
    SC_CHECK(sc__gather(g, g->ndim, g->sizes, SC__CT_F64, (void **)&bg,
                        call->err));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    gw = sc__calloc(C ? C : 1, sizeof *gw);
    gb = sc__calloc(C ? C : 1, sizeof *gb);
    if (!gw || !gb) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (c = 0; c < C; c++) {
        double mu = bm[c], is = train ? bv[c] : 1.0 / sqrt(bv[c] + eps);
        double sum = 0, dot = 0, wc = bw ? bw[c] : 1.0;
        for (n = 0; n < N; n++)
            for (k = 0; k < P; k++) {
                size_t e = (n * C + c) * P + k;
                sum += bg[e];
                dot += (bx[e] - mu) * bg[e];
            }
        gw[c] = dot * is;
        gb[c] = sum;
        for (n = 0; n < N; n++)
            for (k = 0; k < P; k++) {
                size_t e = (n * C + c) * P + k;
                if (train)
                    bg[e] = (bg[e] - sum / (double)cnt -
                             (bx[e] - mu) * (dot * is * is / (double)cnt)) *
                            is * wc;
                else
                    bg[e] = bg[e] * is * wc;
            }
    }
    pd = w ? w->dtype : x->dtype;
    if (mask[0]) {
        SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &outs[0], call->err));
        sc__scatter(outs[0], SC__CT_F64, bg);
    }
    if (mask[1]) {
        SC_CHECK(sc__new(pd, 1, &csz, &outs[1], call->err));
        sc__scatter(outs[1], SC__CT_F64, gw);
    }
    if (mask[2]) {
        SC_CHECK(sc__new(pd, 1, &csz, &outs[2], call->err));
        sc__scatter(outs[2], SC__CT_F64, gb);
    }
    status = sc__out_n(call, 3, outs);
fail:
    for (c = 0; c < 3; c++)
        sc_tensor_free(outs[c]);
    sc__free(bg);
    sc__free(bx);
    sc__free(bw);
    sc__free(bm);
    sc__free(bv);
    sc__free(gw);
    sc__free(gb);
    return status;
}

/* ---- group norm ---------------------------------------------------------------- */

typedef struct gn_args {
    int64_t N, C, HxW, G;
    size_t D;  /* elements per (n, group) */
} gn_args;

static sc_status gn_check(sc__kernel_call *c, const sc_tensor *x,
                          gn_args *a)
{
    if (a->G < 1 || a->C % a->G != 0)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "group_norm: %lld channels are not divisible "
                             "into %lld groups",
                             (long long)a->C, (long long)a->G);
    if (a->N < 0 || a->HxW < 0 || x->ndim < 2 || x->sizes[0] != a->N ||
        x->sizes[1] != a->C ||
        sc_tensor_numel(x) != (size_t)(a->N * a->C * a->HxW))
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "group_norm: input does not have N=%lld, "
                             "C=%lld, HxW=%lld",
                             (long long)a->N, (long long)a->C,
                             (long long)a->HxW);
    a->D = (size_t)(a->C / a->G * a->HxW);
    return SC_OK;
}

/* native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N,
 * SymInt C, SymInt HxW, int group, float eps) -> (out, mean [N, group],
 * rstd [N, group]); biased variance. */
sc_status sc__kernel_native_group_norm(sc__kernel_call *call)
{
    const sc_tensor *x, *w, *b;
    gn_args a;
    double eps, *bx = NULL, *bw = NULL, *bb = NULL, *mean = NULL,
                *rstd = NULL;
    int64_t ssz[2];
    size_t i, k, ng;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    bool f32;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_GROUP_NORM_INPUT, &x));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_GROUP_NORM_WEIGHT, &w));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_GROUP_NORM_BIAS, &b));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_N, &a.N));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_C, &a.C));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_HXW, &a.HxW));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_GROUP, &a.G));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_GROUP_NORM_EPS, &eps));
    SC_CHECK(float_input(call, x, "group_norm"));
    SC_CHECK(gn_check(call, x, &a));
    SC_CHECK(channel_param(call, w, a.C, "group_norm weight", &bw));
    SC_CHECK(channel_param(call, b, a.C, "group_norm bias", &bb));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    ng = (size_t)(a.N * a.G);
    mean = sc__calloc(ng ? ng : 1, sizeof *mean);
    rstd = sc__calloc(ng ? ng : 1, sizeof *rstd);
    if (!mean || !rstd) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    f32 = x->dtype != SC_DTYPE_F64;
    for (i = 0; i < ng; i++) {
        double *v = bx + i * a.D, s = 0, q = 0, mu, rs;
        size_t c0 = (i % (size_t)a.G) * (size_t)(a.C / a.G);
        for (k = 0; k < a.D; k++)
            s += v[k];
        mu = a.D ? s / (double)a.D : 0;
        for (k = 0; k < a.D; k++)
            q += (v[k] - mu) * (v[k] - mu);
        rs = 1.0 / sqrt((a.D ? q / (double)a.D : 0) + eps);
        if (f32) {
            mu = (float)mu;
            rs = (float)rs;
        }
        for (k = 0; k < a.D; k++) {
            size_t ch = c0 + k / (size_t)a.HxW;
            if (f32) {
                float y = ((float)v[k] - (float)mu) * (float)rs;
                if (bw)
                    y = y * (float)bw[ch];
                if (bb)
                    y = y + (float)bb[ch];
                v[k] = y;
            } else {
                double y = (v[k] - mu) * rs;
                if (bw)
                    y *= bw[ch];
                if (bb)
                    y += bb[ch];
                v[k] = y;
            }
        }
        mean[i] = mu;
        rstd[i] = rs;
    }
    ssz[0] = a.N;
    ssz[1] = a.G;
    SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &outs[0], call->err));
    SC_CHECK(sc__new(x->dtype, 2, ssz, &outs[1], call->err));
    SC_CHECK(sc__new(x->dtype, 2, ssz, &outs[2], call->err));
    sc__scatter(outs[0], SC__CT_F64, bx);
    sc__scatter(outs[1], SC__CT_F64, mean);
    sc__scatter(outs[2], SC__CT_F64, rstd);
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(bx);
    sc__free(bw);
    sc__free(bb);
    sc__free(mean);
    sc__free(rstd);
    return status;
}

/* native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean,
 * Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group,
 * bool[3] output_mask) -> (grad_input, grad_weight [C], grad_bias [C]),
 * NULL where the mask is false; [C] in weight's dtype (input's without
 * weight). */
sc_status sc__kernel_native_group_norm_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *x, *tm, *tr, *w;
    gn_args a;
    bool mask[3];
    double *bg = NULL, *bx = NULL, *bm = NULL, *br = NULL, *bw = NULL,
           *gw = NULL, *gb = NULL;
    size_t i, k, ng;
    int64_t csz;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_GRAD_OUT,
                            &g));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_INPUT,
                            &x));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_MEAN,
                            &tm));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_RSTD,
                            &tr));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_GROUP_NORM_BACKWARD_WEIGHT,
                                &w));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_N, &a.N));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_C, &a.C));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_HXW,
                         &a.HxW));
    SC_CHECK(sc__arg_int(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_GROUP,
                         &a.G));
    SC_CHECK(sc__arg_mask(call, SC_KARG_NATIVE_GROUP_NORM_BACKWARD_OUTPUT_MASK,
                          3, mask));
    SC_CHECK(float_input(call, x, "group_norm_backward"));
    SC_CHECK(gn_check(call, x, &a));
    ng = (size_t)(a.N * a.G);
    if (!sc_tensor_same_shape(g, x) || sc_tensor_numel(tm) != ng ||
        sc_tensor_numel(tr) != ng)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "group_norm_backward: inconsistent shapes");
    SC_CHECK(channel_param(call, w, a.C, "group_norm weight", &bw));
    SC_CHECK(sc__gather(g, g->ndim, g->sizes, SC__CT_F64, (void **)&bg,
                        call->err));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    SC_CHECK(sc__gather(tm, tm->ndim, tm->sizes, SC__CT_F64, (void **)&bm,
                        call->err));
    SC_CHECK(sc__gather(tr, tr->ndim, tr->sizes, SC__CT_F64, (void **)&br,
                        call->err));
    gw = sc__calloc(a.C ? (size_t)a.C : 1, sizeof *gw);
    gb = sc__calloc(a.C ? (size_t)a.C : 1, sizeof *gb);
    if (!gw || !gb) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < ng; i++) {
        double *gv = bg + i * a.D, *xv = bx + i * a.D, mu = bm[i], rs = br[i];
        double s1 = 0, s2 = 0;
        size_t c0 = (i % (size_t)a.G) * (size_t)(a.C / a.G);
        for (k = 0; k < a.D; k++) {
            size_t ch = c0 + k / (size_t)a.HxW;
            double xh = (xv[k] - mu) * rs;
            double gwv = gv[k] * (bw ? bw[ch] : 1.0);
            gw[ch] += gv[k] * xh;
            gb[ch] += gv[k];
            s1 += gwv;
            s2 += gwv * xh;
        }
        if (a.D) {
            s1 /= (double)a.D;
            s2 /= (double)a.D;
        }
        for (k = 0; k < a.D; k++) {
            size_t ch = c0 + k / (size_t)a.HxW;
            double xh = (xv[k] - mu) * rs;
            double gwv = gv[k] * (bw ? bw[ch] : 1.0);
            gv[k] = rs * (gwv - s1 - xh * s2);
        }
    }
    csz = a.C;
    if (mask[0]) {
        SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &outs[0], call->err));
        sc__scatter(outs[0], SC__CT_F64, bg);
    }
    if (mask[1]) {
        SC_CHECK(sc__new(w ? w->dtype : x->dtype, 1, &csz, &outs[1],
                         call->err));
        sc__scatter(outs[1], SC__CT_F64, gw);
    }
    if (mask[2]) {
        SC_CHECK(sc__new(w ? w->dtype : x->dtype, 1, &csz, &outs[2],
                         call->err));
        sc__scatter(outs[2], SC__CT_F64, gb);
    }
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(bg);
    sc__free(bx);
    sc__free(bm);
    sc__free(br);
    sc__free(bw);
    sc__free(gw);
    sc__free(gb);
    return status;
}

/* ---- Layer norm ------------------------------------------------------------ */

/* Split x into M rows of N = prod(normalized_shape) (checked against x's
 * trailing sizes); stats_sizes gets x's sizes with the normalized dims 1. */
static sc_status ln_split(sc__kernel_call *c, const sc_tensor *x, size_t nn,
                          const int64_t *ns, size_t *M, size_t *N,
                          int64_t *stats_sizes)
{
    size_t i, axis;
    if (nn > x->ndim || nn == 0)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "layer_norm: normalized_shape of %zu dims for a "
                             "%zu-d input", nn, x->ndim);
    axis = x->ndim - nn;
    for (i = 0; i < nn; i++)
        if (x->sizes[axis + i] != ns[i])
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "layer_norm: normalized_shape[%zu] = %lld "
                                 "but the input has %lld",
                                 i, (long long)ns[i],
                                 (long long)x->sizes[axis + i]);
    *M = 1;
    *N = 1;
    for (i = 0; i < x->ndim; i++) {
        if (i < axis) {
            *M *= (size_t)x->sizes[i];
            stats_sizes[i] = x->sizes[i];
        } else {
            *N *= (size_t)x->sizes[i];
            stats_sizes[i] = 1;
        }
    }
    return SC_OK;
}

static sc_status gather_param(sc__kernel_call *c, const sc_tensor *p,
                              size_t N, const char *what, double **out)
{
    *out = NULL;
    if (!p)
        return SC_OK;
    if (sc_tensor_numel(p) != N)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "%s has %zu elements; expected %zu", what,
                             sc_tensor_numel(p), N);
    return sc__gather(p, p->ndim, p->sizes, SC__CT_F64, (void **)out, c->err);
}

/* native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor?
 * weight, Tensor? bias, float eps) -> (out, mean, rstd).  Statistics are
 * computed in double (biased variance, rstd = 1/sqrt(var + eps)) and
 * rounded to the input dtype; the output is computed in the compute type
 * as (x - mean) * rstd * weight + bias. */
sc_status sc__kernel_native_layer_norm(sc__kernel_call *call)
{
    const sc_tensor *x, *w, *b;
    const int64_t *ns;
    size_t nn, M, N, i, k;
    int64_t ssz[SC_TENSOR_MAX_DIMS];
    double eps, *bw = NULL, *bb = NULL, *bx = NULL, *mean = NULL,
                *rstd = NULL;
    sc_tensor *out = NULL, *tm = NULL, *tr = NULL;
    sc_tensor *res[3];
    bool f32 = false;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_LAYER_NORM_INPUT, &x));
    SC_CHECK(sc__arg_ints(call, SC_KARG_NATIVE_LAYER_NORM_NORMALIZED_SHAPE,
                          &nn, &ns));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_LAYER_NORM_WEIGHT, &w));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BIAS, &b));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_LAYER_NORM_EPS, &eps));
    SC_CHECK(sc__arg_float_check(call, x, "layer_norm"));
    SC_CHECK(ln_split(call, x, nn, ns, &M, &N, ssz));
    f32 = x->dtype != SC_DTYPE_F64;
    SC_CHECK(gather_param(call, w, N, "layer_norm weight", &bw));
    SC_CHECK(gather_param(call, b, N, "layer_norm bias", &bb));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    mean = sc__malloc((M ? M : 1) * sizeof *mean);
    rstd = sc__malloc((M ? M : 1) * sizeof *rstd);
    if (!mean || !rstd) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < M; i++) {
        double *v = bx + i * N, s = 0, q = 0, mu, rs;
        for (k = 0; k < N; k++)
            s += v[k];
        mu = N ? s / (double)N : 0;
        for (k = 0; k < N; k++)
            q += (v[k] - mu) * (v[k] - mu);
        rs = 1.0 / sqrt((N ? q / (double)N : 0) + eps);
        if (f32) {
            float fm = (float)mu, fr = (float)rs;
            for (k = 0; k < N; k++) {
                float y = ((float)v[k] - fm) * fr;
                if (bw)
                    y = y * (float)bw[k];
                if (bb)
                    y = y + (float)bb[k];
                v[k] = y;
            }
            mu = fm;
            rs = fr;
        } else {
            for (k = 0; k < N; k++) {
                double y = (v[k] - mu) * rs;
                if (bw)
                    y *= bw[k];
                if (bb)
                    y += bb[k];
                v[k] = y;
            }
        }
        mean[i] = mu;
        rstd[i] = rs;
    }
    SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &out, call->err));
    SC_CHECK(sc__new(x->dtype, x->ndim, ssz, &tm, call->err));
    SC_CHECK(sc__new(x->dtype, x->ndim, ssz, &tr, call->err));
    sc__scatter(out, SC__CT_F64, bx);
    sc__scatter(tm, SC__CT_F64, mean);
    sc__scatter(tr, SC__CT_F64, rstd);
    sc__free(bw);
    sc__free(bb);
    sc__free(bx);
    sc__free(mean);
    sc__free(rstd);
    res[0] = out;
    res[1] = tm;
    res[2] = tr;
    out = tm = tr = NULL;
    return sc__out_n(call, 3, res);
fail:
    sc__free(bw);
    sc__free(bb);
    sc__free(bx);
    sc__free(mean);
    sc__free(rstd);
    sc_tensor_free(out);
    sc_tensor_free(tm);
    sc_tensor_free(tr);
    return status;
}

/* native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[]
 * normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor?
 * bias, bool[3] output_mask) -> (grad_input, grad_weight, grad_bias);
 * an output not asked for (or grad_weight/bias without weight/bias) is
 * NULL.  Computed in double, rounded to the dtype. */
sc_status sc__kernel_native_layer_norm_backward(sc__kernel_call *call)
{
    const sc_tensor *g, *x, *tm, *tr, *w, *b;
    const int64_t *ns;
    size_t nn, M, N, i, k;
    int64_t ssz[SC_TENSOR_MAX_DIMS];
    bool mask[3] = {true, true, true};
    double *bg = NULL, *bx = NULL, *bm = NULL, *br = NULL, *bw = NULL,
           *dw = NULL, *db = NULL;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BACKWARD_GRAD_OUT,
                            &g));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BACKWARD_INPUT,
                            &x));
    SC_CHECK(sc__arg_ints(call,
                          SC_KARG_NATIVE_LAYER_NORM_BACKWARD_NORMALIZED_SHAPE,
                          &nn, &ns));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BACKWARD_MEAN,
                            &tm));
    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BACKWARD_RSTD,
                            &tr));
    SC_CHECK(sc__arg_opt_tensor(call,
                                SC_KARG_NATIVE_LAYER_NORM_BACKWARD_WEIGHT,
                                &w));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_NATIVE_LAYER_NORM_BACKWARD_BIAS,
                                &b));
    if (!sc__arg_is_none(call,
                         SC_KARG_NATIVE_LAYER_NORM_BACKWARD_OUTPUT_MASK)) {
        const sc__karg *om =
            &call->args[SC_KARG_NATIVE_LAYER_NORM_BACKWARD_OUTPUT_MASK];
        if (om->kind != SC__KARG_BOOLS || om->u.bools.n != 3)
            return sc__error_set(call->err, SC_ERR_TYPE,
                                 "layer_norm_backward: output_mask must be "
                                 "bool[3]");
        for (i = 0; i < 3; i++)
            mask[i] = om->u.bools.v[i];
    }
    SC_CHECK(sc__arg_float_check(call, x, "layer_norm_backward"));
    SC_CHECK(ln_split(call, x, nn, ns, &M, &N, ssz));
    if (!sc_tensor_same_shape(g, x) || sc_tensor_numel(tm) != M ||
        sc_tensor_numel(tr) != M)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "layer_norm_backward: inconsistent shapes");
    SC_CHECK(gather_param(call, w, N, "layer_norm weight", &bw));
    SC_CHECK(sc__gather(g, g->ndim, g->sizes, SC__CT_F64, (void **)&bg,
                        call->err));
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    SC_CHECK(sc__gather(tm, tm->ndim, tm->sizes, SC__CT_F64, (void **)&bm,
                        call->err));
    SC_CHECK(sc__gather(tr, tr->ndim, tr->sizes, SC__CT_F64, (void **)&br,
                        call->err));
    dw = sc__calloc(N ? N : 1, sizeof *dw);
    db = sc__calloc(N ? N : 1, sizeof *db);
    if (!dw || !db) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (i = 0; i < M; i++) {
        double *gv = bg + i * N, *xv = bx + i * N, mu = bm[i], rs = br[i];
        double s1 = 0, s2 = 0;
        for (k = 0; k < N; k++) {
            double xh = (xv[k] - mu) * rs;
            double gw = gv[k] * (bw ? bw[k] : 1.0);
            dw[k] += gv[k] * xh;
            db[k] += gv[k];
            s1 += gw;
            s2 += gw * xh;
        }
        s1 /= (double)N;
        s2 /= (double)N;
        for (k = 0; k < N; k++) {
            double xh = (xv[k] - mu) * rs;
            double gw = gv[k] * (bw ? bw[k] : 1.0);
            gv[k] = rs * (gw - s1 - xh * s2);
        }
    }
    if (mask[0]) {
        SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &outs[0], call->err));
        sc__scatter(outs[0], SC__CT_F64, bg);
    }
    if (mask[1] && w) {
        SC_CHECK(sc__new(w->dtype, w->ndim, w->sizes, &outs[1], call->err));
        sc__scatter(outs[1], SC__CT_F64, dw);
    }
    if (mask[2] && b) {
        SC_CHECK(sc__new(b->dtype, b->ndim, b->sizes, &outs[2], call->err));
        sc__scatter(outs[2], SC__CT_F64, db);
    }
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(bg);
    sc__free(bx);
    sc__free(bm);
    sc__free(br);
    sc__free(bw);
    sc__free(dw);
    sc__free(db);
    return status;
}

/* native_batch_norm on arguments rearranged into its schema's order:
 * args8 holds input .. eps at native_batch_norm's positions. */
static sc_status batch_norm_with(sc__kernel_call *call, const sc__karg *args8)
{
    sc__kernel_call sub = *call;
    sc_status status;
    sub.args = args8;
    sub.nargs = 8;
    sub.nouts = 0;
    status = sc__kernel_native_batch_norm(&sub);
    call->nouts = sub.nouts;
    return status;
}

/* _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
 * running_var, momentum, eps): native_batch_norm with training False
 * (the running statistics are read, not written; results 1 and 2 are
 * empty). */
sc_status sc__kernel_native_batch_norm_no_training(sc__kernel_call *call)
{
    sc__karg a[8];
    if (call->nargs < 7)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "_native_batch_norm_legit_no_training: %zu "
                             "arguments", call->nargs);
    a[SC_KARG_NATIVE_BATCH_NORM_INPUT] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_INPUT];
    a[SC_KARG_NATIVE_BATCH_NORM_WEIGHT] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_WEIGHT];
    a[SC_KARG_NATIVE_BATCH_NORM_BIAS] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_BIAS];
    a[SC_KARG_NATIVE_BATCH_NORM_RUNNING_MEAN] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_RUNNING_MEAN];
    a[SC_KARG_NATIVE_BATCH_NORM_RUNNING_VAR] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_RUNNING_VAR];
    a[SC_KARG_NATIVE_BATCH_NORM_TRAINING].kind = SC__KARG_BOOL;
    a[SC_KARG_NATIVE_BATCH_NORM_TRAINING].u.b = false;
    a[SC_KARG_NATIVE_BATCH_NORM_MOMENTUM] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_MOMENTUM];
    a[SC_KARG_NATIVE_BATCH_NORM_EPS] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_TRAINING_EPS];
    return batch_norm_with(call, a);
}

/* _native_batch_norm_legit.no_stats(input, weight, bias, training,
 * momentum, eps): native_batch_norm without running statistics (training
 * must then be True: eval mode has no statistics to use). */
sc_status sc__kernel_native_batch_norm_no_stats(sc__kernel_call *call)
{
    sc__karg a[8];
    if (call->nargs < 6)
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "_native_batch_norm_legit.no_stats: %zu "
                             "arguments", call->nargs);
    a[SC_KARG_NATIVE_BATCH_NORM_INPUT] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_INPUT];
    a[SC_KARG_NATIVE_BATCH_NORM_WEIGHT] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_WEIGHT];
    a[SC_KARG_NATIVE_BATCH_NORM_BIAS] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_BIAS];
    a[SC_KARG_NATIVE_BATCH_NORM_RUNNING_MEAN].kind = SC__KARG_NONE;
    a[SC_KARG_NATIVE_BATCH_NORM_RUNNING_VAR].kind = SC__KARG_NONE;
    a[SC_KARG_NATIVE_BATCH_NORM_TRAINING] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_TRAINING];
    a[SC_KARG_NATIVE_BATCH_NORM_MOMENTUM] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_MOMENTUM];
    a[SC_KARG_NATIVE_BATCH_NORM_EPS] =
        call->args[SC_KARG_NATIVE_BATCH_NORM_NO_STATS_EPS];
    return batch_norm_with(call, a);
}
