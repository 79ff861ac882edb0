/* symcut — the autodiff transform's state, shared by its driver
 * (graph/autodiff.c), the formula helpers (graph/autodiff-helpers.c) and
 * the generated graph/ops-autodiff-gen.c.  Included by those three files
 * only. */
#ifndef SYMCUT_GRAPH_AUTODIFF_INTERNAL_H
#define SYMCUT_GRAPH_AUTODIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <symcut/graph.h>

#include "graph/autodiff.h"
#include "graph/ops.h"
#include "util/internal.h"

/* One forward tuple node (a multi-return or list-returning op). */
typedef struct sc__ad_tuple {
    size_t count;
    sc_value *grads;          /* count: per element, NONE = undefined */
    sc_node_id *fwd_getitem;  /* count: a forward getitem of it, or NONE */
    sc_node_id *new_getitem;  /* count: one the transform added, or NONE */
} sc__ad_tuple;

struct sc__ad {
    const sc_graph *fwd;
    sc_graph *g;
    sc_ctx *ctx;
    sc_error *err;
    sc__arena arena;
    size_t nfwd;
    sc_node_id *map;          /* forward id -> joint id */
    bool *rg;                 /* forward id: requires grad */
    sc_value *grad;           /* forward id: accumulated gradient */
    sc__ad_tuple **tuples;        /* forward id: tuple bookkeeping, or NULL */
    /* the node being differentiated */
    sc_node_id node;
    sc__op op;
    sc_value fargs[SC_OP_MAX_ARGS_]; /* forward values */
    sc_value args[SC_OP_MAX_ARGS_];  /* mapped into the joint graph */
    /* symbolic integers materialized as SymInt nodes (sym_size, python
     * sym ops): expression -> node value */
    sc_expr **sym_keys;
    sc_value *sym_vals;
    size_t nsym, capsym;
    /* zeros for undefined pieces of list-returning ops: one node per
     * (dtype, device, sizes), keyed by the first piece it stood for */
    sc_node_id *zeros_like_of, *zeros_node;
    size_t nzeros, capzeros;
};

/* Zeroed arena memory of the transform (size 0: one byte); NULL on
 * exhaustion. */
void *sc__ad_alloc(sc__ad *ad, size_t size);
/* An int value when e is a constant, else a symbolic int. */
sc_value sc__ad_expr_value(sc_expr *e);
/* The integer (or symbolic) expression of a value; NULL if not one. */
sc_expr *sc__ad_value_expr(sc__ad *ad, const sc_value *v);
/* A number value (int, float, bool, constant symbolic int) as a double;
 * false when v is not one. */
bool sc__ad_number(const sc_value *v, double *d);
/* Is node id of g a getitem? */
bool sc__ad_is_getitem(const sc_graph *g, sc_node_id id);
/* The tensor metadata of node value v of the joint graph;
 * SC_ERR_UNSUPPORTED naming the forward node and what when v is not a
 * tensor with metadata. */
sc_status sc__ad_node_tensor(sc__ad *ad, const sc_value *v, sc_result *r,
                             const char *what);
/* Append a call of op to positional and keyword values. */
sc_status sc__ad_add_op(sc__ad *ad, sc__op op, size_t npos,
                        const sc_value *pos, size_t nkw,
                        const char *const *kwn, const sc_value *kw,
                        sc_value *out);
/* The n expressions e as a list value (ints where constant). */
sc_status sc__ad_sizes_list(sc__ad *ad, size_t n, sc_expr *const *e,
                            sc_value *out);
/* Contiguous strides of n sizes, as values. */
sc_status sc__ad_contiguous_strides(sc__ad *ad, size_t n, sc_expr *const *s,
                                    sc_value *out);
/* at::sum_to: x summed to the nd sizes to. */
sc_status sc__ad_sum_to(sc__ad *ad, sc_value x, size_t nd, sc_expr *const *to,
                        sc_value *out);

/* Formula helpers (doc/autodiff.md) beyond those of graph/autodiff.h,
 * with their signatures: a[] are the arguments, *out the result.
 * value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim):
 * max.dim's gradient, grad scattered into zeros of sizes at indices. */
sc_status sc__ad_h_value_selecting_reduction_backward(sc__ad *ad,
                                                      const sc_value *a,
                                                      sc_value *out);
/* constant_pad_nd_backward(grad, pad): constant_pad_nd of grad with every
 * pad negated (the padding cut off again). */
sc_status sc__ad_h_constant_pad_nd_backward(sc__ad *ad, const sc_value *a,
                                            sc_value *out);

#endif /* SYMCUT_GRAPH_AUTODIFF_INTERNAL_H */
