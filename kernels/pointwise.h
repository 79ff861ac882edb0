/* symcut — kernels: the elementwise machinery (operands, the unary and
 * binary ops and their runners, kernels/pointwise.c) shared by the
 * elementwise families: pointwise arithmetic (kernels/pointwise.c),
 * activations (kernels/activation.c) and comparisons, selection and
 * masking (kernels/select.c).
 *
 * Included by those three files only.  Not installed. */
#ifndef SYMCUT_KERNELS_POINTWISE_H
#define SYMCUT_KERNELS_POINTWISE_H

#include "kernels/kernels-internal.h"

/* An operand: a tensor, or a Python scalar (as int, float or bool). */
typedef struct sc__pw_operand {
    const sc_tensor *t; /* NULL for a scalar */
    sc_operand_kind kind;
    double f;
    int64_t i;
} sc__pw_operand;

typedef enum sc__pw_unop {
    U_NEG, U_EXP, U_LOG, U_SQRT, U_RSQRT, U_TANH, U_SIGMOID, U_RELU,
    U_GELU, U_GELU_TANH, U_SILU, U_ABS, U_RECIPROCAL, U_ERF
} sc__pw_unop;

typedef enum sc__pw_binop {
    B_ADD, B_SUB, B_RSUB, B_MUL, B_DIV, B_DIV_TRUNC, B_DIV_FLOOR, B_POW,
    B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE,
    B_TANH_BWD, B_SIGMOID_BWD, B_GELU_BWD, B_GELU_TANH_BWD, B_SILU_BWD,
    B_THRESHOLD_BWD
} sc__pw_binop;

/* No `alpha` argument: sc__pw_binary_kernel's alpha is 1. */
#define SC__PW_NO_ALPHA SIZE_MAX

/* Argument i as an operand (a tensor or a scalar). */
sc_status sc__pw_get_operand(sc__kernel_call *c, size_t i,
                             sc__pw_operand *o);

/* PyTorch's result_type of the n (at most 4) operands. */
sc_status sc__pw_result_dtype(size_t n, const sc__pw_operand *o,
                              sc_dtype *out, sc_error *err);

/* The broadcast shape of the tensor operands of o[0..n). */
sc_status sc__pw_operands_shape(size_t n, const sc__pw_operand *o,
                                size_t *ndim, int64_t *sizes, sc_error *err);

/* A new buffer (sc__malloc) of o broadcast to sizes in ct, row-major. */
sc_status sc__pw_operand_gather(const sc__pw_operand *o, size_t ndim,
                                const int64_t *sizes, sc__ctype ct,
                                void **out, sc_error *err);

/* The unary op on the tensor argument `self`. */
sc_status sc__pw_run_unary(sc__kernel_call *c, size_t self, sc__pw_unop op);

/* `approximate` (argument i): "none" (default) or "tanh". */
sc_status sc__pw_gelu_mode(sc__kernel_call *c, size_t i, bool *tanh_mode);

/* Run op over operands o[0] and o[1] (with alpha and a threshold scalar).
 * The result dtype is PyTorch's result_type of the operands, f32 for a
 * true division of integers, bool for comparisons; `float_only` ops
 * reject integer operands. */
sc_status sc__pw_run_binary(sc__kernel_call *c, sc__pw_binop op,
                            const sc__pw_operand *o, double alpha, double th,
                            bool float_only);

/* op on the operands at argument indices a and b, scaled by the Scalar
 * argument `alpha_arg` (SC__PW_NO_ALPHA: none). */
sc_status sc__pw_binary_kernel(sc__kernel_call *c, sc__pw_binop op, size_t a,
                               size_t b, size_t alpha_arg);

/* op on the two tensor arguments at indices a and b. */
sc_status sc__pw_backward_kernel(sc__kernel_call *c, sc__pw_binop op,
                                 size_t a, size_t b);

/* sc__kernel_<name>: the unary op on argument `self`, read as
 * SC_KARG_<NAME>_SELF. */
#define SC__PW_UNARY_KERNEL(name, NAME, op)                                  \
    sc_status sc__kernel_##name(sc__kernel_call *call)                       \
    {                                                                        \
        return sc__pw_run_unary(call, SC_KARG_##NAME##_SELF, op);            \
    }

/* sc__kernel_<name>: the comparison of `self` and `other`, read as
 * SC_KARG_<NAME>_TENSOR_SELF / _OTHER (the .Scalar overloads are
 * aliases). */
#define SC__PW_CMP_KERNEL(name, NAME, op)                                    \
    sc_status sc__kernel_##name(sc__kernel_call *call)                       \
    {                                                                        \
        return sc__pw_binary_kernel(call, op, SC_KARG_##NAME##_TENSOR_SELF,  \
                                    SC_KARG_##NAME##_TENSOR_OTHER,           \
                                    SC__PW_NO_ALPHA);                        \
    }

#endif /* SYMCUT_KERNELS_POINTWISE_H */
