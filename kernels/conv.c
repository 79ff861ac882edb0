/* symcut — kernels: convolution (1-, 2- and 3-d, strided, padded, dilated,
 * grouped, and transposed) with its backward, and 2-d max pooling with
 * indices and its backward.
 *
 * A convolution relates a "big" side and a "small" side: position o of the
 * small side sees positions o*stride - padding + k*dilation of the big
 * side, for each kernel offset k.  A plain convolution's input is the big
 * side and its output the small one; a transposed convolution swaps them.
 * Three computations serve all six:
 *   gather   small[n, a, o] = sum_{b in a's group, k} big[n, b, i(o, k)] * w[a, b', k]
 *   scatter  big[n, b, i(o, k)] += small[n, a, o] * w[a, b', k]
 *   wgrad    gw[a, b', k] = sum_{n, o} small[n, a, o] * big[n, b, i(o, k)]
 * where w is [C_small, C_big / groups, kernel...].  Spatial dims are
 * padded to three with leading size-1 dims.  Floating tensors only; sums
 * run in the compute type (float for f32/f16/bf16, double for f64), the
 * bias gradient in double as sum() does.
 *
 * They run as matrix products on kernels/gemm.c, per batch element and
 * group, over the "columns" of the big side: col[r][o] = big[b, i(o, k)]
 * (0 outside the input) for r = (b, k) in row-major order (im2col).
 * gather is w (C_small/G x R) times col: every output element is the sum
 * over b, then the kernel offsets in row-major order, in increasing r
 * (padding adds exact zeros).  wgrad is small times col transposed,
 * accumulated over the batch in order: each gradient element sums over n,
 * then o in row-major order.  scatter is w transposed times small (the
 * sum over the small channels), added back onto the big side in (r, o)
 * order (col2im).  The bf16 weight and bias gradients of a plain
 * convolution instead follow PyTorch's CPU order (wgrad_bf16, bgrad_bf16
 * below; doc/kernels.md).  Fixed orders, one thread: the same bits on
 * every run and in every graph. */
#include "kernels/kernels-internal.h"
#include "kernels/gemm.h"

typedef struct cgeom {
    int64_t N, CS, CB, G;
    int64_t S[3], B[3], K[3], st[3], pd[3], dl[3];
} cgeom;

#define PLANE(v) ((v)[0] * (v)[1] * (v)[2])

/* ---- The three computations on matrix products ---------------------------- */

#define DEFINE_CONV_GEMM(SUF, T, GEMM)                                       \
    /* The im2col map of one batch element and group (bigg points at its  \
     * first big channel): every (r, o) whose big-side position is inside  \
     * the input pairs col[r][o] (col[o][r] when tr) with it.  add false:   \
     * col = big there, 0 elsewhere (im2col); add true: big += col, col     \
     * read as R x sp (col2im, the adjoint). */                             \
    static void colmap_##SUF(const cgeom *g, T *bigg, T *col, bool tr,     \
                             bool add)                                     \
    {                                                                        \
        int64_t CBg = g->CB / g->G, kp = PLANE(g->K), sp = PLANE(g->S);      \
        int64_t bp = PLANE(g->B), R = CBg * kp;                              \
        int64_t bl, k0, k1, k2, o0, o1, o2, r = 0;                           \
        for (bl = 0; bl < CBg; bl++)                                         \
            for (k0 = 0; k0 < g->K[0]; k0++)                                 \
                for (k1 = 0; k1 < g->K[1]; k1++)                             \
                    for (k2 = 0; k2 < g->K[2]; k2++, r++) {                  \
                        T *big = bigg + bl * bp;                             \
                        int64_t o = 0;                                       \
                        for (o0 = 0; o0 < g->S[0]; o0++) {                   \
                            int64_t i0 = o0 * g->st[0] - g->pd[0] +          \
                                         k0 * g->dl[0];                      \
                            bool ok0 = i0 >= 0 && i0 < g->B[0];              \
                            for (o1 = 0; o1 < g->S[1]; o1++) {               \
                                int64_t i1 = o1 * g->st[1] - g->pd[1] +      \
                                             k1 * g->dl[1];                  \
                                bool ok1 = ok0 && i1 >= 0 && i1 < g->B[1];   \
                                for (o2 = 0; o2 < g->S[2]; o2++, o++) {      \
                                    int64_t i2 = o2 * g->st[2] - g->pd[2] +  \
                                                 k2 * g->dl[2];              \
                                    bool in = ok1 && i2 >= 0 && i2 < g->B[2];\
                                    int64_t b = (i0 * g->B[1] + i1) *        \
                                                    g->B[2] + i2;            \
                                    T *cv = col + (tr ? o * R + r            \
                                                      : r * sp + o);         \
                                    if (add) {                               \
                                        if (in)                              \
                                            big[b] += *cv;                   \
                                    } else {                                 \
                                        *cv = in ? big[b] : (T)0;            \
                                    }                                        \
                                }                                            \
                            }                                                \
                        }                                                    \
                    }                                                        \
    }                                                                        \
                                                                             \
    static void im2col_##SUF(const cgeom *g, const T *bigg, T *col, bool tr) \
    {                                                                        \
        colmap_##SUF(g, (T *)bigg, col, tr, false);                          \
    }                                                                        \
                                                                             \
    /* kind 0 gather (out = small), 1 scatter (out = big), 2 wgrad (out =    \
     * gw, in1 = small, in2 = big); out is zeroed by the caller. */          \
    static sc_status mm_##SUF(sc__kernel_call *c, const cgeom *g, int kind,  \
                              T *out, const T *in1, const T *in2)            \
    {                                                                        \
        int64_t CSg = g->CS / g->G, CBg = g->CB / g->G;                      \
        int64_t sp = PLANE(g->S), bp = PLANE(g->B), kp = PLANE(g->K);        \
        int64_t R = CBg * kp, n, grp, i, j;                                  \
        T *col = sc__malloc((size_t)(R * sp > 0 ? R * sp : 1) * sizeof *col);\
        T *wt = NULL;                                                        \
        if (!col)                                                            \
            return sc__error_nomem(c->err);                                  \
        if (kind == 1) {                                                     \
            wt = sc__malloc((size_t)(R * CSg > 0 ? R * CSg : 1) * sizeof *wt);\
            if (!wt) {                                                       \
                sc__free(col);                                               \
                return sc__error_nomem(c->err);                              \
            }                                                                \
        }                                                                    \
        for (grp = 0; grp < g->G; grp++) {                                   \
            const T *wg = in2 + grp * CSg * R; /* w for gather, scatter */   \
            if (kind == 1)                                                   \
                for (i = 0; i < CSg; i++)                                    \
                    for (j = 0; j < R; j++)                                  \
                        wt[j * CSg + i] = wg[i * R + j];                     \
            for (n = 0; n < g->N; n++) {                                     \
                size_t sg = (size_t)((n * g->CS + grp * CSg) * sp);          \
                size_t bg = (size_t)((n * g->CB + grp * CBg) * bp);          \
                if (kind == 0) {                                             \
                    im2col_##SUF(g, in1 + bg, col, false);                   \
                    GEMM((size_t)CSg, (size_t)R, (size_t)sp, wg, col,        \
                         out + sg);                                          \
                } else if (kind == 1) {                                      \
                    memset(col, 0, (size_t)(R * sp) * sizeof *col);          \
                    GEMM((size_t)R, (size_t)CSg, (size_t)sp, wt, in1 + sg,   \
                         col);                                               \
                    colmap_##SUF(g, out + bg, col, false, true);                          \
                } else {                                                     \
                    im2col_##SUF(g, in2 + bg, col, true);                    \
                    GEMM((size_t)CSg, (size_t)sp, (size_t)R, in1 + sg, col,  \
                         out + grp * CSg * R);                               \
                }                                                            \
            }                                                                \
        }                                                                    \
        sc__free(col);                                                       \
        sc__free(wt);                                                        \
        return SC_OK;                                                        \
    }

DEFINE_CONV_GEMM(f32, float, sc__gemm_f32)
DEFINE_CONV_GEMM(f64, double, sc__gemm_f64)

/* ---- Arguments and geometry ------------------------------------------------ */

typedef struct conv_args {
    const sc_tensor *x, *w;  /* input and weight */
    size_t nsp;              /* spatial dims: 1, 2 or 3 */
    int64_t st[3], pd[3], dl[3], op[3], groups;
    bool transposed;
    int64_t out_sizes[SC_TENSOR_MAX_DIMS];
    cgeom g;
} conv_args;

/* A list of nsp ints (one value is repeated), right-aligned into out[3]
 * over `fill`. */
static sc_status int_list3(sc__kernel_call *c, size_t i, size_t nsp,
                           int64_t fill, int64_t lo, const char *what,
                           int64_t *out)
{
    const int64_t *v;
    size_t n, k;
    SC_TRY(sc__arg_ints(c, i, &n, &v));
    if (n != nsp && n != 1)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "convolution: %s has %zu entries for %zu "
                             "spatial dims", what, n, nsp);
    for (k = 0; k < 3; k++)
        out[k] = fill;
    for (k = 0; k < nsp; k++) {
        int64_t e = v[n == 1 ? 0 : k];
        if (e < lo)
            return sc__error_set(c->err, SC_ERR_INVALID,
                                 "convolution: %s %lld must be >= %lld", what,
                                 (long long)e, (long long)lo);
        out[3 - nsp + k] = e;
    }
    return SC_OK;
}

/* The argument indices of a convolution's (input, weight, ..., stride,
 * padding, dilation, transposed, output_padding, groups); CONV_INDICES(K)
 * for kernel K. */
typedef struct conv_indices {
    size_t input, weight, stride, padding, dilation, transposed,
        output_padding, groups;
} conv_indices;
#define CONV_INDICES(K)                                                      \
    ((conv_indices){SC_KARG_##K##_INPUT, SC_KARG_##K##_WEIGHT,               \
                    SC_KARG_##K##_STRIDE, SC_KARG_##K##_PADDING,             \
                    SC_KARG_##K##_DILATION, SC_KARG_##K##_TRANSPOSED,        \
                    SC_KARG_##K##_OUTPUT_PADDING, SC_KARG_##K##_GROUPS})

/* Read the arguments at ix; check the shapes and fill the geometry. */
static sc_status conv_parse(sc__kernel_call *c, conv_args *a,
                            conv_indices ix)
{
    const sc_tensor *x, *w;
    int64_t cin, cout, in[3] = {1, 1, 1}, ker[3] = {1, 1, 1}, out[3];
    size_t k;

    SC_TRY(sc__arg_tensor(c, ix.input, &a->x));
    SC_TRY(sc__arg_tensor(c, ix.weight, &a->w));
    x = a->x;
    w = a->w;
    if (x->ndim < 3 || x->ndim > 5)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "convolution: input must be [N, C, ...] with 1 "
                             "to 3 spatial dims, not %zu-d", x->ndim);
    a->nsp = x->ndim - 2;
    if (w->ndim != x->ndim)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "convolution: weight is %zu-d for a %zu-d input",
                             w->ndim, x->ndim);
    if (!sc__dtype_is_float(x->dtype) || w->dtype != x->dtype)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "convolution: input and weight must have the "
                             "same floating dtype");
    SC_TRY(int_list3(c, ix.stride, a->nsp, 1, 1, "stride", a->st));
    SC_TRY(int_list3(c, ix.padding, a->nsp, 0, 0, "padding", a->pd));
    SC_TRY(int_list3(c, ix.dilation, a->nsp, 1, 1, "dilation", a->dl));
    SC_TRY(sc__arg_bool(c, ix.transposed, &a->transposed));
    SC_TRY(int_list3(c, ix.output_padding, a->nsp, 0, 0, "output_padding",
                     a->op));
    SC_TRY(sc__arg_int(c, ix.groups, &a->groups));
    if (a->groups < 1)
        return sc__error_set(c->err, SC_ERR_INVALID,
                             "convolution: groups must be positive");
    cin = x->sizes[1];
    for (k = 0; k < a->nsp; k++) {
        in[3 - a->nsp + k] = x->sizes[2 + k];
        ker[3 - a->nsp + k] = w->sizes[2 + k];
    }
    if (!a->transposed) {
        for (k = 0; k < 3; k++)
            if (a->op[k] != 0)
                return sc__error_set(c->err, SC_ERR_INVALID,
                                     "convolution: output_padding needs "
                                     "transposed=True");
        cout = w->sizes[0];
        if (w->sizes[1] * a->groups != cin || cout % a->groups != 0)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "convolution: weight [%lld, %lld, ...] does "
                                 "not fit %lld input channels in %lld groups",
                                 (long long)w->sizes[0],
                                 (long long)w->sizes[1], (long long)cin,
                                 (long long)a->groups);
    } else {
        if (w->sizes[0] != cin || cin % a->groups != 0)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "convolution: transposed weight [%lld, %lld, "
                                 "...] does not fit %lld input channels in "
                                 "%lld groups",
                                 (long long)w->sizes[0],
                                 (long long)w->sizes[1], (long long)cin,
                                 (long long)a->groups);
        cout = w->sizes[1] * a->groups;
    }
    for (k = 0; k < 3; k++) {
        int64_t span = a->dl[k] * (ker[k] - 1) + 1;
        if (a->transposed) {
            if (a->op[k] >= a->st[k] && a->op[k] >= a->dl[k])
                return sc__error_set(c->err, SC_ERR_INVALID,
                                     "convolution: output_padding must be "
                                     "smaller than stride or dilation");
            out[k] = (in[k] - 1) * a->st[k] - 2 * a->pd[k] + span + a->op[k];
        } else {
            int64_t padded = in[k] + 2 * a->pd[k];
            out[k] = padded < span ? 0 : (padded - span) / a->st[k] + 1;
            if (padded < span)
                return sc__error_set(c->err, SC_ERR_SHAPE,
                                     "convolution: kernel span %lld is larger "
                                     "than the padded input %lld",
                                     (long long)span, (long long)padded);
        }
        if (out[k] < 0)
            return sc__error_set(c->err, SC_ERR_SHAPE,
                                 "convolution: negative output size");
    }
    a->out_sizes[0] = x->sizes[0];
    a->out_sizes[1] = cout;
    for (k = 0; k < a->nsp; k++)
        a->out_sizes[2 + k] = out[3 - a->nsp + k];
    a->g.N = x->sizes[0];
    a->g.G = a->groups;
    a->g.CS = a->transposed ? cin : cout;
    a->g.CB = a->transposed ? cout : cin;
    for (k = 0; k < 3; k++) {
        a->g.S[k] = a->transposed ? in[k] : out[k];
        a->g.B[k] = a->transposed ? out[k] : in[k];
        a->g.K[k] = ker[k];
        a->g.st[k] = a->st[k];
        a->g.pd[k] = a->pd[k];
        a->g.dl[k] = a->dl[k];
    }
    return SC_OK;
}

/* The three computations on matrix products. */
static sc_status run_mm(sc__kernel_call *c, sc__ctype ct, const cgeom *g,
                        int kind, void *out, const void *in1, const void *in2)
{
    if (ct == SC__CT_F32)
        return mm_f32(c, g, kind, out, in1, in2);
    return mm_f64(c, g, kind, out, in1, in2);
}

static sc_status run_gather(sc__kernel_call *c, sc__ctype ct, const cgeom *g,
                            void *small, const void *big, const void *w)
{
    return run_mm(c, ct, g, 0, small, big, w);
}

static sc_status run_scatter(sc__kernel_call *c, sc__ctype ct,
                             const cgeom *g, void *big, const void *small,
                             const void *w)
{
    return run_mm(c, ct, g, 1, big, small, w);
}

static sc_status run_wgrad(sc__kernel_call *c, sc__ctype ct, const cgeom *g,
                           void *gw, const void *small, const void *big)
{
    return run_mm(c, ct, g, 2, gw, small, big);
}

/* The bf16 weight gradient of a plain (not transposed) convolution in
 * PyTorch's CPU order, oneDNN's AMX backward-weights kernel as torch 2.13
 * runs it: per batch element, per row of the output (its last spatial
 * dim, W positions), the row is cut into ceil(W / 32) chunks of equal
 * even length (the last one shorter); in a chunk the products at even and
 * at odd offsets are summed in float in two separate running sums, and
 * the gradient element adds (even + odd) at the end of the chunk.  small
 * and big are float (bf16 values), gw float, zeroed by the caller. */
static sc_status wgrad_bf16(sc__kernel_call *c, const cgeom *g, float *gw,
                            const float *small, const float *big)
{
    int64_t CSg = g->CS / g->G, CBg = g->CB / g->G;
    int64_t sp = PLANE(g->S), bp = PLANE(g->B), R = CBg * PLANE(g->K);
    int64_t W = g->S[2], rows = W > 0 ? sp / W : 0;
    int64_t nchunk = (W + 31) / 32, len, n, grp, a, r, row, s, o;
    float *col = sc__malloc((size_t)(R * sp > 0 ? R * sp : 1) * sizeof *col);
    if (!col)
        return sc__error_nomem(c->err);
    len = nchunk > 0 ? (W + nchunk - 1) / nchunk : 0;
    len += len % 2;
    for (grp = 0; grp < g->G; grp++)
        for (n = 0; n < g->N; n++) {
            const float *sg = small + (n * g->CS + grp * CSg) * sp;
            im2col_f32(g, big + (n * g->CB + grp * CBg) * bp, col, false);
            for (a = 0; a < CSg; a++)
                for (r = 0; r < R; r++) {
                    float *dst = gw + (grp * CSg + a) * R + r;
                    const float *sa = sg + a * sp, *cr = col + r * sp;
                    for (row = 0; row < rows; row++)
                        for (s = 0; s < W; s += len) {
                            float even = 0.0f, odd = 0.0f;
                            int64_t end = s + len < W ? s + len : W;
                            for (o = row * W + s; o < row * W + end; o++) {
                                float p = sa[o] * cr[o];
                                if ((o - row * W - s) % 2 == 0)
                                    even += p;
                                else
                                    odd += p;
                            }
                            *dst += even + odd;
                        }
                }
        }
    sc__free(col);
    return SC_OK;
}

/* The bf16 bias gradient of a plain convolution in PyTorch's CPU order
 * (the same oneDNN kernel): one float sum per channel, over the rows of
 * the output (every spatial dim but the last) in row-major order, in a
 * row over the batch, then over the row's W positions. */
static void bgrad_bf16(double *gb, const float *go, size_t N, size_t C,
                       size_t plane, size_t W)
{
    size_t c, n, row, k;
    for (c = 0; c < C; c++) {
        float sum = 0.0f;
        for (row = 0; W > 0 && row < plane / W; row++)
            for (n = 0; n < N; n++)
                for (k = 0; k < W; k++)
                    sum += go[(n * C + c) * plane + row * W + k];
        gb[c] = sum;
    }
}

static sc_status zbuf(sc__kernel_call *c, size_t n, sc__ctype ct, void **out)
{
    *out = sc__calloc(n ? n : 1, sc__ctype_size(ct));
    return *out ? SC_OK : sc__error_nomem(c->err);
}

/* convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
 * SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[]
 * output_padding, SymInt groups) */
sc_status sc__kernel_convolution(sc__kernel_call *call)
{
    conv_args a;
    const sc_tensor *bias;
    sc__ctype ct;
    void *bx = NULL, *bw = NULL, *bo = NULL, *bb = NULL;
    sc_tensor *r = NULL;
    size_t n;
    sc_status status;

    SC_CHECK(conv_parse(call, &a, CONV_INDICES(CONVOLUTION)));
    SC_CHECK(sc__arg_opt_tensor(call, SC_KARG_CONVOLUTION_BIAS, &bias));
    if (bias && (bias->ndim != 1 || bias->sizes[0] != a.out_sizes[1]))
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "convolution: bias must be [%lld]",
                             (long long)a.out_sizes[1]);
    ct = sc__ctype_of(a.x->dtype);
    SC_CHECK(sc__numel_checked(a.x->ndim, a.out_sizes, &n, call->err));
    SC_CHECK(sc__gather(a.x, a.x->ndim, a.x->sizes, ct, &bx, call->err));
    SC_CHECK(sc__gather(a.w, a.w->ndim, a.w->sizes, ct, &bw, call->err));
    SC_CHECK(zbuf(call, n, ct, &bo));
    if (a.transposed)
        SC_CHECK(run_scatter(call, ct, &a.g, bo, bx, bw));
    else
        SC_CHECK(run_gather(call, ct, &a.g, bo, bx, bw));
    if (bias) {
        size_t plane = 1, i, k, c, C = (size_t)a.out_sizes[1];
        for (k = 2; k < a.x->ndim; k++)
            plane *= (size_t)a.out_sizes[k];
        SC_CHECK(sc__gather(bias, 1, bias->sizes, ct, &bb, call->err));
        for (i = 0; i < (size_t)a.out_sizes[0]; i++)
            for (c = 0; c < C; c++)
                for (k = 0; k < plane; k++) {
                    size_t e = (i * C + c) * plane + k;
                    if (ct == SC__CT_F32)
                        ((float *)bo)[e] += ((float *)bb)[c];
                    else
                        ((double *)bo)[e] += ((double *)bb)[c];
                }
    }
    SC_CHECK(sc__new(a.x->dtype, a.x->ndim, a.out_sizes, &r, call->err));
    sc__scatter(r, ct, bo);
    sc__free(bx);
    sc__free(bw);
    sc__free(bo);
    sc__free(bb);
    return sc__out(call, r);
fail:
    sc__free(bx);
    sc__free(bw);
    sc__free(bo);
    sc__free(bb);
    sc_tensor_free(r);
    return status;
}

/* convolution_backward(Tensor grad_output, Tensor input, Tensor weight,
 * SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[]
 * dilation, bool transposed, SymInt[] output_padding, SymInt groups,
 * bool[3] output_mask) -> (grad_input, grad_weight, grad_bias), NULL where
 * the mask is false.  grad_bias is [C_out] (bias_sizes when given). */
sc_status sc__kernel_convolution_backward(sc__kernel_call *call)
{
    conv_args a;
    const sc_tensor *go;
    bool mask[3];
    sc__ctype ct;
    void *bgo = NULL, *bx = NULL, *bw = NULL, *gi = NULL, *gw = NULL;
    double *gb = NULL;
    sc_tensor *outs[3] = {NULL, NULL, NULL};
    size_t nx, nw, i;
    int64_t C;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_CONVOLUTION_BACKWARD_GRAD_OUTPUT,
                            &go));
    SC_CHECK(conv_parse(call, &a, CONV_INDICES(CONVOLUTION_BACKWARD)));
    SC_CHECK(sc__arg_mask(call, SC_KARG_CONVOLUTION_BACKWARD_OUTPUT_MASK, 3,
                          mask));
    if (go->ndim != a.x->ndim || go->dtype != a.x->dtype)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "convolution_backward: grad_output must match "
                             "the output's rank and dtype");
    for (i = 0; i < go->ndim; i++)
        if (go->sizes[i] != a.out_sizes[i])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "convolution_backward: grad_output size "
                                 "%lld in dimension %zu, expected %lld",
                                 (long long)go->sizes[i], i,
                                 (long long)a.out_sizes[i]);
    C = a.out_sizes[1];
    if (mask[2] && !sc__arg_is_none(call,
                                    SC_KARG_CONVOLUTION_BACKWARD_BIAS_SIZES)) {
        const int64_t *bs;
        size_t nb;
        SC_CHECK(sc__arg_ints(call, SC_KARG_CONVOLUTION_BACKWARD_BIAS_SIZES,
                              &nb, &bs));
        if (nb != 1 || bs[0] != C)
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "convolution_backward: bias_sizes must be "
                                 "[%lld]", (long long)C);
    }
    ct = sc__ctype_of(a.x->dtype);
    nx = sc_tensor_numel(a.x);
    nw = sc_tensor_numel(a.w);
    SC_CHECK(sc__gather(go, go->ndim, go->sizes, ct, &bgo, call->err));
    if (mask[0]) {
        SC_CHECK(sc__gather(a.w, a.w->ndim, a.w->sizes, ct, &bw, call->err));
        SC_CHECK(zbuf(call, nx, ct, &gi));
        if (a.transposed)
            SC_CHECK(run_gather(call, ct, &a.g, gi, bgo, bw));
        else
            SC_CHECK(run_scatter(call, ct, &a.g, gi, bgo, bw));
        SC_CHECK(sc__new(a.x->dtype, a.x->ndim, a.x->sizes, &outs[0],
                         call->err));
        sc__scatter(outs[0], ct, gi);
    }
    if (mask[1]) {
        SC_CHECK(sc__gather(a.x, a.x->ndim, a.x->sizes, ct, &bx, call->err));
        SC_CHECK(zbuf(call, nw, ct, &gw));
        if (a.transposed)
            SC_CHECK(run_wgrad(call, ct, &a.g, gw, bx, bgo));
        else if (a.x->dtype == SC_DTYPE_BF16)
            SC_CHECK(wgrad_bf16(call, &a.g, gw, bgo, bx));
        else
            SC_CHECK(run_wgrad(call, ct, &a.g, gw, bgo, bx));
        SC_CHECK(sc__new(a.w->dtype, a.w->ndim, a.w->sizes, &outs[1],
                         call->err));
        sc__scatter(outs[1], ct, gw);
    }
    if (mask[2]) {
        size_t plane = sc_tensor_numel(go) / (size_t)(C * go->sizes[0]), k, c;
        if (go->sizes[0] == 0 || C == 0)
            plane = 0;
        SC_CHECK(zbuf(call, (size_t)C, SC__CT_F64, (void **)&gb));
        if (a.x->dtype == SC_DTYPE_BF16 && !a.transposed)
            bgrad_bf16(gb, bgo, (size_t)go->sizes[0], (size_t)C, plane,
                       (size_t)go->sizes[go->ndim - 1]);
        else
            for (c = 0; c < (size_t)C; c++)
                for (i = 0; i < (size_t)go->sizes[0]; i++)
                    for (k = 0; k < plane; k++) {
                        size_t e = (i * (size_t)C + c) * plane + k;
                        gb[c] += ct == SC__CT_F32
                                     ? (double)((float *)bgo)[e]
                                     : ((double *)bgo)[e];
                    }
        SC_CHECK(sc__new(a.x->dtype, 1, &C, &outs[2], call->err));
        sc__scatter(outs[2], SC__CT_F64, gb);
    }
    status = sc__out_n(call, 3, outs);
fail:
    for (i = 0; i < 3; i++)
        sc_tensor_free(outs[i]);
    sc__free(bgo);
    sc__free(bx);
    sc__free(bw);
    sc__free(gi);
    sc__free(gw);
    sc__free(gb);
    return status;
}

/* ---- max_pool2d ---------------------------------------------------------------- */

typedef struct pool_args {
    const sc_tensor *x;
    int64_t k[2], st[2], pd[2], dl[2];
    bool ceil;
    int64_t planes, H, W, OH, OW;
    int64_t out_sizes[4];
} pool_args;

static sc_status pool_list(sc__kernel_call *c, size_t i, const char *what,
                           bool empty_ok, const int64_t *dflt, int64_t *out)
{
    const int64_t *v;
    size_t n;
    SC_TRY(sc__arg_ints(c, i, &n, &v));
    if (n == 0 && empty_ok) {
        out[0] = dflt[0];
        out[1] = dflt[1];
        return SC_OK;
    }
    if (n != 1 && n != 2)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "max_pool2d: %s must have 1 or 2 entries", what);
    out[0] = v[0];
    out[1] = v[n - 1];
    return SC_OK;
}

/* PyTorch's pooling_output_shape. */
static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t st,
                        int64_t dil, bool ceil)
{
    int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? st - 1 : 0);
    int64_t o = (num >= 0 ? num / st : -((-num + st - 1) / st)) + 1;
    if (ceil && (o - 1) * st >= in + pad)
        o--;
    return o;
}

/* The argument indices of max_pool2d's (self, kernel_size, stride,
 * padding, dilation, ceil_mode); POOL_INDICES(K) for kernel K. */
typedef struct pool_indices {
    size_t self, kernel_size, stride, padding, dilation, ceil_mode;
} pool_indices;
#define POOL_INDICES(K)                                                      \
    ((pool_indices){SC_KARG_##K##_SELF, SC_KARG_##K##_KERNEL_SIZE,           \
                    SC_KARG_##K##_STRIDE, SC_KARG_##K##_PADDING,             \
                    SC_KARG_##K##_DILATION, SC_KARG_##K##_CEIL_MODE})

/* Read the arguments at ix; check the shapes and fill the geometry. */
static sc_status pool_parse(sc__kernel_call *c, pool_args *a,
                            pool_indices ix)
{
    static const int64_t zero[2] = {0, 0};
    const sc_tensor *x;
    size_t k;

    SC_TRY(sc__arg_tensor(c, ix.self, &a->x));
    x = a->x;
    SC_TRY(pool_list(c, ix.kernel_size, "kernel_size", false, zero, a->k));
    SC_TRY(pool_list(c, ix.stride, "stride", true, a->k, a->st));
    SC_TRY(pool_list(c, ix.padding, "padding", false, zero, a->pd));
    SC_TRY(pool_list(c, ix.dilation, "dilation", false, zero, a->dl));
    a->ceil = false;
    if (!sc__arg_is_none(c, ix.ceil_mode))
        SC_TRY(sc__arg_bool(c, ix.ceil_mode, &a->ceil));
    if (x->ndim != 3 && x->ndim != 4)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "max_pool2d: input must be 3-d or 4-d, not "
                             "%zu-d", x->ndim);
    if (!sc__dtype_is_float(x->dtype) && x->dtype != SC_DTYPE_I64 &&
        x->dtype != SC_DTYPE_I32 && x->dtype != SC_DTYPE_I16 &&
        x->dtype != SC_DTYPE_I8 && x->dtype != SC_DTYPE_U8)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "max_pool2d: unsupported dtype");
    for (k = 0; k < 2; k++) {
        if (a->k[k] < 1 || a->st[k] < 1 || a->dl[k] < 1 || a->pd[k] < 0)
            return sc__error_set(c->err, SC_ERR_INVALID,
                                 "max_pool2d: kernel_size, stride and "
                                 "dilation must be positive, padding "
                                 "non-negative");
        if (a->pd[k] > a->k[k] / 2)
            return sc__error_set(c->err, SC_ERR_INVALID,
                                 "max_pool2d: padding %lld should be at most "
                                 "half of the kernel size %lld",
                                 (long long)a->pd[k], (long long)a->k[k]);
    }
    a->H = x->sizes[x->ndim - 2];
    a->W = x->sizes[x->ndim - 1];
    a->planes = 1;
    for (k = 0; k + 2 < x->ndim; k++)
        a->planes *= x->sizes[k];
    a->OH = pool_out(a->H, a->k[0], a->pd[0], a->st[0], a->dl[0], a->ceil);
    a->OW = pool_out(a->W, a->k[1], a->pd[1], a->st[1], a->dl[1], a->ceil);
    if (a->OH < 1 || a->OW < 1)
        return sc__error_set(c->err, SC_ERR_SHAPE,
                             "max_pool2d: output size %lldx%lld is too small",
                             (long long)a->OH, (long long)a->OW);
    for (k = 0; k + 2 < x->ndim; k++)
        a->out_sizes[k] = x->sizes[k];
    a->out_sizes[x->ndim - 2] = a->OH;
    a->out_sizes[x->ndim - 1] = a->OW;
    return SC_OK;
}

/* max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2]
 * stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)
 * -> (values, int64 indices into each input plane, h * W + w).  A NaN wins
 * (the last NaN of a window); a window of -inf keeps its first position. */
sc_status sc__kernel_max_pool2d_with_indices(sc__kernel_call *call)
{
    pool_args a;
    sc__ctype ct;
    double *bx = NULL, *bo = NULL;
    int64_t *bi = NULL;
    sc_tensor *outs[2] = {NULL, NULL};
    int64_t p, oh, ow;
    size_t no;
    sc_status status;

    SC_CHECK(pool_parse(call, &a, POOL_INDICES(MAX_POOL2D_WITH_INDICES)));
    ct = sc__ctype_of(a.x->dtype);
    no = (size_t)(a.planes * a.OH * a.OW);
    SC_CHECK(sc__gather(a.x, a.x->ndim, a.x->sizes, SC__CT_F64, (void **)&bx,
                        call->err));
    bo = sc__malloc(no ? no * sizeof *bo : 1);
    bi = sc__malloc(no ? no * sizeof *bi : 1);
    if (!bo || !bi) {
        status = sc__error_nomem(call->err);
        goto fail;
    }
    for (p = 0; p < a.planes; p++) {
        const double *src = bx + p * a.H * a.W;
        for (oh = 0; oh < a.OH; oh++)
            for (ow = 0; ow < a.OW; ow++) {
                int64_t h0 = oh * a.st[0] - a.pd[0];
                int64_t w0 = ow * a.st[1] - a.pd[1];
                int64_t h1 = h0 + (a.k[0] - 1) * a.dl[0] + 1;
                int64_t w1 = w0 + (a.k[1] - 1) * a.dl[1] + 1;
                int64_t h, w, best;
                double m = -INFINITY;
                size_t e = (size_t)((p * a.OH + oh) * a.OW + ow);
                while (h0 < 0)
                    h0 += a.dl[0];
                while (w0 < 0)
                    w0 += a.dl[1];
                if (h1 > a.H)
                    h1 = a.H;
                if (w1 > a.W)
                    w1 = a.W;
                best = h0 * a.W + w0;
                for (h = h0; h < h1; h += a.dl[0])
                    for (w = w0; w < w1; w += a.dl[1]) {
                        double v = src[h * a.W + w];
                        if (v > m || v != v) {
                            m = v;
                            best = h * a.W + w;
                        }
                    }
                bo[e] = m;
                bi[e] = best;
            }
    }
    SC_CHECK(sc__new(a.x->dtype, a.x->ndim, a.out_sizes, &outs[0],
                     call->err));
    SC_CHECK(sc__new(SC_DTYPE_I64, a.x->ndim, a.out_sizes, &outs[1],
                     call->err));
    sc__scatter(outs[0], SC__CT_F64, bo);
    memcpy(sc_tensor_data(outs[1]), bi, no * sizeof *bi);
    (void)ct;
    sc__free(bx);
    sc__free(bo);
    sc__free(bi);
    return sc__out_n(call, 2, outs);
fail:
    sc__free(bx);
    sc__free(bo);
    sc__free(bi);
    sc_tensor_free(outs[0]);
    sc_tensor_free(outs[1]);
    return status;
}

/* max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2]
 * kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool
 * ceil_mode, Tensor indices): zeros like self, each grad_output element
 * added (in output order) at its index. */
sc_status sc__kernel_max_pool2d_with_indices_backward(sc__kernel_call *call)
{
    pool_args a;
    const sc_tensor *go, *ix;
    sc__ctype ct;
    void *bgo = NULL, *gi = NULL;
    int64_t *bi = NULL, p, o, plane_out;
    size_t i;
    sc_status status;
    sc_tensor *r = NULL;

    SC_CHECK(sc__arg_tensor(
        call, SC_KARG_MAX_POOL2D_WITH_INDICES_BACKWARD_GRAD_OUTPUT, &go));
    SC_CHECK(pool_parse(call, &a,
                        POOL_INDICES(MAX_POOL2D_WITH_INDICES_BACKWARD)));
    SC_CHECK(sc__arg_tensor(call,
                            SC_KARG_MAX_POOL2D_WITH_INDICES_BACKWARD_INDICES,
                            &ix));
    if (!sc__dtype_is_float(a.x->dtype) || go->dtype != a.x->dtype)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "max_pool2d backward: grad_output and self must "
                             "have the same floating dtype");
    if (sc__dtype_is_float(ix->dtype) || !sc_tensor_same_shape(go, ix) ||
        go->ndim != a.x->ndim)
        return sc__error_set(call->err, SC_ERR_SHAPE,
                             "max_pool2d backward: grad_output and indices "
                             "must have the output's shape");
    for (i = 0; i < go->ndim; i++)
        if (go->sizes[i] != a.out_sizes[i])
            return sc__error_set(call->err, SC_ERR_SHAPE,
                                 "max_pool2d backward: grad_output size %lld "
                                 "in dimension %zu, expected %lld",
                                 (long long)go->sizes[i], i,
                                 (long long)a.out_sizes[i]);
    ct = sc__ctype_of(a.x->dtype);
    plane_out = a.OH * a.OW;
    SC_CHECK(sc__gather(go, go->ndim, go->sizes, ct, &bgo, call->err));
    SC_CHECK(sc__gather(ix, ix->ndim, ix->sizes, SC__CT_I64, (void **)&bi,
                        call->err));
    SC_CHECK(zbuf(call, sc_tensor_numel(a.x), ct, &gi));
    for (p = 0; p < a.planes; p++)
        for (o = 0; o < plane_out; o++) {
            int64_t e = p * plane_out + o, t = bi[e];
            if (t < 0 || t >= a.H * a.W) {
                status = sc__error_set(call->err, SC_ERR_INVALID,
                                       "max_pool2d backward: index %lld out "
                                       "of range [0, %lld)",
                                       (long long)t, (long long)(a.H * a.W));
                goto fail;
            }
            if (ct == SC__CT_F32)
                ((float *)gi)[p * a.H * a.W + t] += ((float *)bgo)[e];
            else
                ((double *)gi)[p * a.H * a.W + t] += ((double *)bgo)[e];
        }
    SC_CHECK(sc__new(a.x->dtype, a.x->ndim, a.x->sizes, &r, call->err));
    sc__scatter(r, ct, gi);
    sc__free(bgo);
    sc__free(bi);
    sc__free(gi);
    return sc__out(call, r);
fail:
    sc__free(bgo);
    sc__free(bi);
    sc__free(gi);
    sc_tensor_free(r);
    return status;
}
