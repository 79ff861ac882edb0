/* symcut — the runtime of the generated derivative code.  Included by
 * graph/autodiff*.c and the generated graph/ops-autodiff-gen.c only.
 *
 * graph/gen/gen-ops compiles the `derivatives:` formulas of graph/ops.yaml
 * into graph/ops-autodiff-gen.c: one function per differentiable op that
 * evaluates its formulas through the functions below (the runtime in
 * graph/autodiff.c, the helpers in graph/autodiff-helpers.c), while
 * sc_graph_new_joint (graph/autodiff.c) differentiates one forward node.
 * Values are sc_value: nodes of the joint graph, ints, symbolic ints, floats,
 * lists; an undefined gradient is SC_VALUE_NONE.  Lists built here live
 * until the transform ends.  doc/autodiff.md describes the formulas.
 */
#ifndef SYMCUT_GRAPH_AUTODIFF_H
#define SYMCUT_GRAPH_AUTODIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/graph.h>

#include "graph/ops.h"

typedef struct sc__ad sc__ad;

typedef enum sc__ad_kind {
    SC_AD_NONE,               /* no `derivatives`: a gradient through it is an
                                 error */
    SC_AD_NOT_DIFFERENTIABLE, /* outputs never carry gradients */
    SC_AD_FORMULAS
} sc__ad_kind;

typedef struct sc__ad_info {
    sc__ad_kind kind;
    sc_status (*fn)(sc__ad *ad); /* SC_AD_FORMULAS */
    uint32_t diff_inputs;        /* bit i: argument i has a formula */
    uint32_t diff_outputs;       /* bit i: return i is differentiable */
} sc__ad_info;

extern const sc__ad_info sc__ad_table[SC_OP_COUNT_];

/* ---- Reading the forward node ------------------------------------------ */

/* Argument i of the forward node (schema order, default filled in), its
 * node references mapped into the joint graph. */
sc_status sc__ad_arg(sc__ad *ad, int i, sc_value *out);
/* grads[i]: zeros shaped like return i when undefined (the formula runs
 * because another gradient it reads is defined). */
sc_status sc__ad_grad(sc__ad *ad, int i, sc_value *out);
/* All gradients of a list-returning op as a list (zeros for undefined). */
sc_status sc__ad_grads(sc__ad *ad, sc_value *out);
/* The forward node (i = -1) or its return i (a getitem node). */
sc_status sc__ad_result(sc__ad *ad, int i, sc_value *out);
/* grad_input_mask: for each of the n arguments, whether it needs a grad. */
sc_status sc__ad_mask(sc__ad *ad, size_t n, const int *args, sc_value *out);
/* Does argument i need a gradient? */
bool sc__ad_needs(const sc__ad *ad, int i);
/* Is any grads[i] with bit i of mask defined?  (mask 0: true.) */
bool sc__ad_defined(const sc__ad *ad, uint32_t mask);

/* ---- Building ------------------------------------------------------------- */

/* A string value (the text is static). */
sc_value sc__ad_string(const char *s);
/* Append a call of op: args[i] for the schema's argument i where bit i of
 * given is set, the schema's default elsewhere.  *out is the new node. */
sc_status sc__ad_call(sc__ad *ad, sc__op op, const sc_value *args,
                      uint32_t given, sc_value *out);
/* Element i of a tuple node (getitem), a list, or an int list. */
sc_status sc__ad_index(sc__ad *ad, const sc_value *v, int64_t i,
                       sc_value *out);
/* Arithmetic on numbers (ints, symbolic ints, floats): op is + - * / or
 * 'n' (negate a). */
sc_status sc__ad_arith(sc__ad *ad, char op, const sc_value *a,
                       const sc_value *b, sc_value *out);
/* A list of n values (copied). */
sc_status sc__ad_list(sc__ad *ad, size_t n, const sc_value *items,
                      sc_value *out);
/* The gradient of argument i (a node, or a list for a Tensor[] argument);
 * accumulated with earlier gradients of the same value. */
sc_status sc__ad_set_grad(sc__ad *ad, int i, const sc_value *g);
/* The gradients of n arguments: elements of the tuple node t. */
sc_status sc__ad_set_grads(sc__ad *ad, size_t n, const int *args,
                           const sc_value *t);

/* ---- Helpers (doc/autodiff.md) ------------------------------------------- */
sc_status sc__ad_h_sym_sizes(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_sizes_or_none(sc__ad *ad, const sc_value *a,
                                 sc_value *out);
sc_status sc__ad_h_sym_size(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_sym_strides(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_dim(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_sym_numel(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_scalar_type(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_sum_to_size(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_maybe_multiply(sc__ad *ad, const sc_value *a,
                                  sc_value *out);
sc_status sc__ad_h_reshape_as_sizes(sc__ad *ad, const sc_value *a,
                                    sc_value *out);
sc_status sc__ad_h_cat_backward(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_permute_backwards(sc__ad *ad, const sc_value *a,
                                     sc_value *out);
sc_status sc__ad_h_dropout_scale(sc__ad *ad, const sc_value *a,
                                 sc_value *out);

sc_status sc__ad_h_or_else(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_as_strided_offset(sc__ad *ad, const sc_value *a,
                                     sc_value *out);
sc_status sc__ad_h_div_mode_grad(sc__ad *ad, const sc_value *a,
                                 sc_value *out);
sc_status sc__ad_h_log_scalar(sc__ad *ad, const sc_value *a, sc_value *out);
sc_status sc__ad_h_sum_backward(sc__ad *ad, const sc_value *a,
                                sc_value *out);
sc_status sc__ad_h_amax_backward(sc__ad *ad, const sc_value *a,
                                 sc_value *out);
sc_status sc__ad_h_clamp_backward(sc__ad *ad, const sc_value *a,
                                  sc_value *out);

#endif /* SYMCUT_GRAPH_AUTODIFF_H */
