/* symcut — kernels: the counter-based generator (Philox 4x32-10) and the
 * random ops.  Element i of a random op's output is a function of (seed,
 * node_key, i) only: the counter is (i, node_key) and the key the seed, so
 * running an op twice -- in the forward and again when the backward
 * recomputes it -- gives the same bits.  There is no generator state. */
#include "kernels/kernels-internal.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void sc__philox4x32(const uint32_t ctr[4], const uint32_t key[2],
                    uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    int r;
    for (r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

static void draw(const sc__kernel_call *c, uint64_t i, uint32_t out[4])
{
    uint32_t ctr[4], key[2];
    ctr[0] = (uint32_t)i;
    ctr[1] = (uint32_t)(i >> 32);
    ctr[2] = (uint32_t)c->node_key;
    ctr[3] = (uint32_t)(c->node_key >> 32);
    key[0] = (uint32_t)c->seed;
    key[1] = (uint32_t)(c->seed >> 32);
    sc__philox4x32(ctr, key, out);
}

/* Uniform in [0, 1): 24 bits for float types, 53 for f64. */
static double uniform(const sc__kernel_call *c, uint64_t i, bool dbl)
{
    uint32_t w[4];
    draw(c, i, w);
    if (dbl)
        return (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
    return (double)(w[0] >> 8) * 0x1p-24;
}

/* native_dropout(Tensor input, float p, bool? train) -> (out, mask):
 * element i is kept when uniform(i) < 1 - p, and scaled by 1/(1-p) (0
 * when p == 1).  train False: (copy of input, all-true mask). */
sc_status sc__kernel_native_dropout(sc__kernel_call *call)
{
    const sc_tensor *x;
    double p;
    bool train = true;
    sc_tensor *out = NULL, *mask = NULL;
    sc_tensor *res[2];
    sc__ctype ct;
    void *buf = NULL;
    size_t n, i;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_NATIVE_DROPOUT_INPUT, &x));
    SC_CHECK(sc__arg_double(call, SC_KARG_NATIVE_DROPOUT_P, &p));
    if (!sc__arg_is_none(call, SC_KARG_NATIVE_DROPOUT_TRAIN))
        SC_CHECK(sc__arg_bool(call, SC_KARG_NATIVE_DROPOUT_TRAIN, &train));
    if (!sc__dtype_is_float(x->dtype))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "dropout needs a floating tensor");
    if (!(p >= 0 && p <= 1))
        return sc__error_set(call->err, SC_ERR_INVALID,
                             "dropout probability %g is not in [0, 1]", p);
    ct = sc__ctype_of(x->dtype);
    n = sc_tensor_numel(x);
    SC_CHECK(sc__gather(x, x->ndim, x->sizes, ct, &buf, call->err));
    SC_CHECK(sc__new(SC_DTYPE_B8, x->ndim, x->sizes, &mask, call->err));
    {
        unsigned char *m = sc_tensor_data(mask);
        double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
        for (i = 0; i < n; i++) {
            bool keep = !train ||
                        uniform(call, i, ct == SC__CT_F64) < 1.0 - p;
            m[i] = keep;
            if (!train)
                continue;
            if (ct == SC__CT_F32)
                ((float *)buf)[i] =
                    keep ? ((float *)buf)[i] * (float)scale : 0.0f;
            else
                ((double *)buf)[i] = keep ? ((double *)buf)[i] * scale : 0.0;
        }
    }
    SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &out, call->err));
    sc__scatter(out, ct, buf);
    sc__free(buf);
    buf = NULL;
    res[0] = out;
    res[1] = mask;
    out = mask = NULL;
    return sc__out_n(call, 2, res);
fail:
    sc__free(buf);
    sc_tensor_free(out);
    sc_tensor_free(mask);
    return status;
}

/* bernoulli(Tensor self) (probabilities from self), bernoulli.p(Tensor
 * self, float p) and the functional form of bernoulli_.float: 1 where
 * uniform(i) < p, else 0, in self's dtype and shape. */
sc_status sc__kernel_bernoulli(sc__kernel_call *call)
{
    const sc_tensor *x;
    double p = 0;
    bool from_self;
    sc_tensor *r = NULL;
    size_t n, i;
    void *probs = NULL;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_BERNOULLI_P_SELF, &x));
    from_self = sc__arg_is_none(call, SC_KARG_BERNOULLI_P_P) ||
                call->args[SC_KARG_BERNOULLI_P_P].kind == SC__KARG_TENSOR;
    if (from_self && !sc__arg_is_none(call, SC_KARG_BERNOULLI_P_P))
        return sc__error_set(call->err, SC_ERR_UNSUPPORTED,
                             "bernoulli with a tensor p is not supported");
    if (!from_self) {
        SC_CHECK(sc__arg_double(call, SC_KARG_BERNOULLI_P_P, &p));
        if (!(p >= 0 && p <= 1))
            return sc__error_set(call->err, SC_ERR_INVALID,
                                 "bernoulli probability %g is not in [0, 1]",
                                 p);
    }
    n = sc_tensor_numel(x);
    if (from_self)
        SC_CHECK(sc__gather(x, x->ndim, x->sizes, SC__CT_F64, &probs,
                            call->err));
    SC_CHECK(sc__new(x->dtype, x->ndim, x->sizes, &r, call->err));
    {
        unsigned char *d = sc_tensor_data(r);
        size_t isz = sc_dtype_itemsize(x->dtype);
        for (i = 0; i < n; i++) {
            double pi = from_self ? ((double *)probs)[i] : p;
            sc__store_i64(d + i * isz, x->dtype,
                          uniform(call, i, true) < pi);
        }
    }
    sc__free(probs);
    return sc__out(call, r);
fail:
    sc__free(probs);
    sc_tensor_free(r);
    return status;
}

/* rand_like(Tensor self, *, ScalarType? dtype=None, ...): uniform [0, 1)
 * in self's shape. */
sc_status sc__kernel_rand_like(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_dtype d;
    sc_tensor *r = NULL;
    size_t n, i, isz;
    unsigned char *p;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_RAND_LIKE_SELF, &x));
    d = x->dtype;
    if (!sc__arg_is_none(call, SC_KARG_RAND_LIKE_DTYPE)) {
        if (call->args[SC_KARG_RAND_LIKE_DTYPE].kind != SC__KARG_DTYPE)
            return sc__error_set(call->err, SC_ERR_TYPE,
                                 "rand_like: argument 1 must be a dtype");
        d = call->args[SC_KARG_RAND_LIKE_DTYPE].u.dtype;
    }
    if (!sc__dtype_is_float(d))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "rand_like needs a floating dtype");
    SC_CHECK(sc__new(d, x->ndim, x->sizes, &r, call->err));
    n = sc_tensor_numel(r);
    isz = sc_dtype_itemsize(d);
    p = sc_tensor_data(r);
    for (i = 0; i < n; i++) {
        double u = uniform(call, i, d == SC_DTYPE_F64);
        /* f16/bf16 rounding could give 1.0: draw 11/8 bits for them */
        if (d == SC_DTYPE_F16)
            u = (double)((uint32_t)(u * 0x1p24) >> 13) * 0x1p-11;
        else if (d == SC_DTYPE_BF16)
            u = (double)((uint32_t)(u * 0x1p24) >> 16) * 0x1p-8;
        sc__store_f64(p + i * isz, d, u);
    }
    return sc__out(call, r);
fail:
    sc_tensor_free(r);
    return status;
}

/* randn_like(Tensor self, *, ScalarType? dtype=None, layout, device,
 * pin_memory, memory_format): standard normal in self's shape (contiguous).
 * Element i uses the Philox block of counter (i, node_key), keyed by the
 * seed as rand_like: two 53-bit uniforms u1, u2 from its four words, then
 * Box-Muller sqrt(-2 ln(1 - u1)) cos(2 pi u2) in double, rounded to the
 * dtype. */
sc_status sc__kernel_randn_like(sc__kernel_call *call)
{
    const sc_tensor *x;
    sc_dtype d;
    sc_tensor *r = NULL;
    size_t n, i, isz;
    unsigned char *p;
    sc_status status;

    SC_CHECK(sc__arg_tensor(call, SC_KARG_RANDN_LIKE_SELF, &x));
    SC_CHECK(sc__arg_dtype(call, SC_KARG_RANDN_LIKE_DTYPE, x->dtype, &d));
    SC_CHECK(sc__arg_factory_opts(call, SC__FACTORY_OPTS(RANDN_LIKE)));
    if (!sc__dtype_is_float(d))
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "randn_like needs a floating dtype");
    SC_CHECK(sc__new(d, x->ndim, x->sizes, &r, call->err));
    n = sc_tensor_numel(r);
    isz = sc_dtype_itemsize(d);
    p = sc_tensor_data(r);
    for (i = 0; i < n; i++) {
        uint32_t w[4];
        double u1, u2, z;
        draw(call, i, w);
        u1 = (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
        u2 = (double)((((uint64_t)w[2] << 32) | w[3]) >> 11) * 0x1p-53;
        z = sqrt(-2.0 * log(1.0 - u1)) *
            cos(2.0 * 3.14159265358979323846 * u2);
        sc__store_f64(p + i * isz, d, z);
    }
    return sc__out(call, r);
fail:
    sc_tensor_free(r);
    return status;
}
