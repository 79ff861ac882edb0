/* symcut — kernels: activations (tanh, sigmoid, relu, gelu, silu) and their
 * backward ops. */
#include "kernels/pointwise.h"

SC__PW_UNARY_KERNEL(tanh, TANH, U_TANH)
SC__PW_UNARY_KERNEL(sigmoid, SIGMOID, U_SIGMOID)
SC__PW_UNARY_KERNEL(relu, RELU, U_RELU)
SC__PW_UNARY_KERNEL(silu, SILU, U_SILU)

/* gelu(Tensor self, *, str approximate='none') */
sc_status sc__kernel_gelu(sc__kernel_call *call)
{
    bool t;
    SC_TRY(sc__pw_gelu_mode(call, SC_KARG_GELU_APPROXIMATE, &t));
    return sc__pw_run_unary(call, SC_KARG_GELU_SELF, t ? U_GELU_TANH : U_GELU);
}

/* tanh_backward(Tensor grad_output, Tensor output) */
sc_status sc__kernel_tanh_backward(sc__kernel_call *call)
{
    return sc__pw_backward_kernel(call, B_TANH_BWD,
                                  SC_KARG_TANH_BACKWARD_GRAD_OUTPUT,
                                  SC_KARG_TANH_BACKWARD_OUTPUT);
}

/* sigmoid_backward(Tensor grad_output, Tensor output) */
sc_status sc__kernel_sigmoid_backward(sc__kernel_call *call)
{
    return sc__pw_backward_kernel(call, B_SIGMOID_BWD,
                                  SC_KARG_SIGMOID_BACKWARD_GRAD_OUTPUT,
                                  SC_KARG_SIGMOID_BACKWARD_OUTPUT);
}

/* silu_backward(Tensor grad_output, Tensor self) */
sc_status sc__kernel_silu_backward(sc__kernel_call *call)
{
    return sc__pw_backward_kernel(call, B_SILU_BWD,
                                  SC_KARG_SILU_BACKWARD_GRAD_OUTPUT,
                                  SC_KARG_SILU_BACKWARD_SELF);
}

/* gelu_backward(Tensor grad_output, Tensor self, *, str approximate) */
sc_status sc__kernel_gelu_backward(sc__kernel_call *call)
{
    bool t;
    SC_TRY(sc__pw_gelu_mode(call, SC_KARG_GELU_BACKWARD_APPROXIMATE, &t));
    return sc__pw_backward_kernel(call, t ? B_GELU_TANH_BWD : B_GELU_BWD,
                                  SC_KARG_GELU_BACKWARD_GRAD_OUTPUT,
                                  SC_KARG_GELU_BACKWARD_SELF);
}

/* threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) */
sc_status sc__kernel_threshold_backward(sc__kernel_call *call)
{
    sc__pw_operand o[2];
    double th;
    SC_TRY(sc__pw_get_operand(call, SC_KARG_THRESHOLD_BACKWARD_GRAD_OUTPUT,
                              &o[0]));
    SC_TRY(sc__pw_get_operand(call, SC_KARG_THRESHOLD_BACKWARD_SELF, &o[1]));
    SC_TRY(sc__arg_double(call, SC_KARG_THRESHOLD_BACKWARD_THRESHOLD, &th));
    if (!o[0].t || !o[1].t)
        return sc__error_set(call->err, SC_ERR_TYPE,
                             "threshold_backward takes two tensors");
    return sc__pw_run_binary(call, B_THRESHOLD_BWD, o, 1, th, false);
}
