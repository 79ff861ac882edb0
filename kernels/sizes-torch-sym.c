/* symcut — kernels: torch's functions on symbolic integers that FX prints
 * as calls (torch.sym_max, torch.sym_min), evaluated on concrete values.
 * An operand is an int or a 0-d integer tensor (the result of another
 * symbolic kernel); the result is a 0-d int64 tensor, as the other
 * symbolic kernels give (kernels/sizes-python.c). */
#include "kernels/kernels-internal.h"

static sc_status operand(sc__kernel_call *c, size_t i, int64_t *v)
{
    if (i < c->nargs && c->args[i].kind == SC__KARG_TENSOR && c->args[i].u.t &&
        c->args[i].u.t->ndim == 0 &&
        !sc__dtype_is_float(c->args[i].u.t->dtype)) {
        *v = sc_tensor_item_int64(c->args[i].u.t, 0);
        return SC_OK;
    }
    return sc__arg_int(c, i, v);
}

static sc_status min_max(sc__kernel_call *c, bool max, size_t self,
                         size_t other)
{
    int64_t a, b;
    sc_tensor *t = NULL;
    SC_TRY(operand(c, self, &a));
    SC_TRY(operand(c, other, &b));
    SC_TRY(sc_tensor_new(SC_DTYPE_I64, 0, NULL, &t, c->err));
    *(int64_t *)sc_tensor_data(t) = max ? (a > b ? a : b) : (a < b ? a : b);
    return sc__out(c, t);
}

sc_status sc__kernel_torch_sym_max(sc__kernel_call *call)
{
    return min_max(call, true, SC_KARG_TORCH_SYM_MAX_SELF,
                   SC_KARG_TORCH_SYM_MAX_OTHER);
}

sc_status sc__kernel_torch_sym_min(sc__kernel_call *call)
{
    return min_max(call, false, SC_KARG_TORCH_SYM_MIN_SELF,
                   SC_KARG_TORCH_SYM_MIN_OTHER);
}
