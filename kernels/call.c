/* symcut — kernels: reading a kernel call's arguments and storing its
 * results. */
#include "kernels/kernels-internal.h"

static const char *kind_name(sc__karg_kind k)
{
    static const char *const names[] = {
        "None", "Tensor", "int", "float", "bool", "int[]", "float[]",
        "bool[]", "Tensor[]", "str", "dtype"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static sc_status bad_arg(sc__kernel_call *c, size_t i, const char *want)
{
    if (i >= c->nargs)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "kernel argument %zu (%s) is missing", i, want);
    return sc__error_set(c->err, SC_ERR_TYPE,
                         "kernel argument %zu: expected %s, got %s", i, want,
                         kind_name(c->args[i].kind));
}

bool sc__arg_is_none(const sc__kernel_call *c, size_t i)
{
    return i >= c->nargs || c->args[i].kind == SC__KARG_NONE;
}

sc_status sc__arg_tensor(sc__kernel_call *c, size_t i, const sc_tensor **t)
{
    if (i >= c->nargs || c->args[i].kind != SC__KARG_TENSOR ||
        !c->args[i].u.t)
        return bad_arg(c, i, "Tensor");
    *t = c->args[i].u.t;
    return SC_OK;
}

sc_status sc__arg_opt_tensor(sc__kernel_call *c, size_t i,
                             const sc_tensor **t)
{
    if (sc__arg_is_none(c, i)) {
        *t = NULL;
        return SC_OK;
    }
    return sc__arg_tensor(c, i, t);
}

sc_status sc__arg_int(sc__kernel_call *c, size_t i, int64_t *v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_INT) {
        *v = c->args[i].u.i;
        return SC_OK;
    }
    if (i < c->nargs && c->args[i].kind == SC__KARG_BOOL) {
        *v = c->args[i].u.b;
        return SC_OK;
    }
    return bad_arg(c, i, "int");
}

sc_status sc__arg_double(sc__kernel_call *c, size_t i, double *v)
{
    if (i < c->nargs) {
        switch (c->args[i].kind) {
        case SC__KARG_FLOAT: *v = c->args[i].u.f; return SC_OK;
        case SC__KARG_INT: *v = (double)c->args[i].u.i; return SC_OK;
        case SC__KARG_BOOL: *v = c->args[i].u.b; return SC_OK;
        default: break;
        }
    }
    return bad_arg(c, i, "float");
}

sc_status sc__arg_bool(sc__kernel_call *c, size_t i, bool *v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_BOOL) {
        *v = c->args[i].u.b;
        return SC_OK;
    }
    if (i < c->nargs && c->args[i].kind == SC__KARG_INT) {
        *v = c->args[i].u.i != 0;
        return SC_OK;
    }
    return bad_arg(c, i, "bool");
}

sc_status sc__arg_ints(sc__kernel_call *c, size_t i, size_t *n,
                       const int64_t **v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_INTS) {
        *n = c->args[i].u.ints.n;
        *v = c->args[i].u.ints.v;
        return SC_OK;
    }
    if (i < c->nargs && c->args[i].kind == SC__KARG_INT) {
        *n = 1;
        *v = &c->args[i].u.i;
        return SC_OK;
    }
    return bad_arg(c, i, "int[]");
}

sc_status sc__arg_tensors(sc__kernel_call *c, size_t i, size_t *n,
                          const sc_tensor *const **v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSORS) {
        *n = c->args[i].u.tensors.n;
        *v = c->args[i].u.tensors.v;
        return SC_OK;
    }
    return bad_arg(c, i, "Tensor[]");
}

sc_status sc__arg_float_check(sc__kernel_call *c, const sc_tensor *t,
                              const char *what)
{
    if (!sc__dtype_is_float(t->dtype))
        return sc__error_set(c->err, SC_ERR_TYPE, "%s needs a floating "
                                                  "tensor", what);
    return SC_OK;
}

sc_status sc__out(sc__kernel_call *c, sc_tensor *t)
{
    if (c->nouts >= c->max_outs) {
        sc_tensor_free(t);
        return sc__error_set(c->err, SC_ERR_INTERNAL,
                             "kernel produces more than %zu outputs",
                             c->max_outs);
    }
    c->outs[c->nouts++] = t;
    return SC_OK;
}

void sc__out_reset(sc__kernel_call *c)
{
    while (c->nouts > 0) {
        c->nouts--;
        sc_tensor_free(c->outs[c->nouts]);
        c->outs[c->nouts] = NULL;
    }
}

sc_status sc__arg_dtype(sc__kernel_call *c, size_t i, sc_dtype dflt,
                        sc_dtype *out)
{
    *out = dflt;
    if (sc__arg_is_none(c, i))
        return SC_OK;
    if (c->args[i].kind != SC__KARG_DTYPE)
        return bad_arg(c, i, "dtype");
    if (!sc_tensor_dtype_supported(c->args[i].u.dtype))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "kernel argument %zu: unsupported dtype", i);
    *out = c->args[i].u.dtype;
    return SC_OK;
}

sc_status sc__arg_mask(sc__kernel_call *c, size_t i, size_t n, bool *mask)
{
    size_t k;
    for (k = 0; k < n; k++)
        mask[k] = true;
    if (sc__arg_is_none(c, i))
        return SC_OK;
    if (c->args[i].kind != SC__KARG_BOOLS || c->args[i].u.bools.n != n)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "kernel argument %zu: expected bool[%zu]", i, n);
    for (k = 0; k < n; k++)
        mask[k] = c->args[i].u.bools.v[k];
    return SC_OK;
}

sc_status sc__arg_factory_opts(sc__kernel_call *c, size_t layout,
                               size_t device, size_t pin_memory)
{
    bool pin = false;
    if (!sc__arg_is_none(c, layout) &&
        (c->args[layout].kind != SC__KARG_STR ||
         strcmp(c->args[layout].u.s, "strided") != 0))
        return sc__error_set(c->err, SC_ERR_UNSUPPORTED,
                             "kernel argument %zu: only the strided layout "
                             "is supported", layout);
    /* any device: the kernels run every graph on the CPU (callers say so,
       sc_interp_foreign_devices) */
    if (!sc__arg_is_none(c, device) && c->args[device].kind != SC__KARG_STR)
        return sc__error_set(c->err, SC_ERR_TYPE,
                             "kernel argument %zu: expected a device",
                             device);
    if (!sc__arg_is_none(c, pin_memory))
        SC_TRY(sc__arg_bool(c, pin_memory, &pin));
    (void)pin; /* pinned memory means nothing on CPU */
    return SC_OK;
}

sc_status sc__out_n(sc__kernel_call *c, size_t n, sc_tensor **ts)
{
    size_t k;
    sc_status status;
    for (k = 0; k < n; k++) {
        sc_tensor *t = ts[k];
        ts[k] = NULL;
        SC_CHECK(sc__out(c, t));
    }
    return SC_OK;
fail:
    for (k++; k < n; k++) {
        sc_tensor_free(ts[k]);
        ts[k] = NULL;
    }
    sc__out_reset(c);
    return status;
}
