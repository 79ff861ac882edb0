/* symcut — the cost formulas of the op table's ops (graph/cost.c).
 *
 * Included by graph/cost.c, cli/ never (it names ops by the internal op
 * ids), and by the tests (tests/check_cost.c walks the op table with it).
 * Not installed; nothing here is public API.  doc/graph.md, "Cost". */
#ifndef SYMCUT_GRAPH_COST_H
#define SYMCUT_GRAPH_COST_H

#include "graph/ops.h"

/* X(NAME, spelling, computes): the formula classes.  `computes` is 1 for
 * the classes that count FLOPs, 0 for those that only move (or allocate)
 * bytes and for the nodes that run nothing. */
#define SC__COST_FORMULAS(X)                                                 \
    X(UNCLASSIFIED, "unclassified", 0) /* an op cost.c does not know */      \
    X(NOTHING, "nothing", 0)           /* symbolic, getitem, asserts */      \
    X(VIEW, "view", 0)                 /* metadata only */                   \
    X(ALLOC, "alloc", 0)               /* empty*: allocates, writes nothing */ \
    X(FILL, "fill", 0)                 /* writes its result, reads nothing */ \
    X(COPY, "copy", 0)                 /* reads its tensors, writes result */ \
    X(GATHER, "gather", 0)             /* reads index + result's worth */    \
    X(POINTWISE, "pointwise", 1)       /* 1 per result element */            \
    X(RANDOM, "random", 1)             /* draws per element */               \
    X(REDUCE, "reduce", 1)             /* 1 per input element */             \
    X(MEAN, "mean", 1)                 /* reduce + 1 per result element */   \
    X(SOFTMAX, "softmax", 1)           /* 5 per element */                   \
    X(SOFTMAX_BACKWARD, "softmax_backward", 1) /* 4 per element */           \
    X(MM, "mm", 1)                                                           \
    X(ADDMM, "addmm", 1)                                                     \
    X(BMM, "bmm", 1)                                                         \
    X(BADDBMM, "baddbmm", 1)                                                 \
    X(LINEAR, "linear", 1)                                                   \
    X(CONVOLUTION, "convolution", 1)                                         \
    X(CONVOLUTION_BACKWARD, "convolution_backward", 1)                       \
    X(NORM, "norm", 1)                 /* layer/group/batch norm */          \
    X(NORM_BACKWARD, "norm_backward", 1)                                     \
    X(SDPA, "sdpa", 1)                                                       \
    X(SDPA_BACKWARD, "sdpa_backward", 1)                                     \
    X(MAX_POOL, "max_pool", 1)                                               \
    X(SCATTER_ADD, "scatter_add", 1)   /* 1 per grad_output element */       \
    X(NLL_LOSS, "nll_loss", 1)                                               \
    X(NLL_LOSS_BACKWARD, "nll_loss_backward", 1)

#define SC__COST_FORMULA_ENUM(NAME, spelling, computes) SC__COST_##NAME,
typedef enum sc__cost_formula {
    SC__COST_FORMULAS(SC__COST_FORMULA_ENUM)
    SC__COST_COUNT_
} sc__cost_formula;
#undef SC__COST_FORMULA_ENUM

/* The formula class of op (SC__COST_UNCLASSIFIED for an op cost.c does
 * not list: the test of the whole table fails on it). */
sc__cost_formula sc__op_cost_formula(sc__op op);

/* "pointwise", ...; "?" when out of range. */
const char *sc__cost_formula_name(sc__cost_formula f);

/* Whether the class counts FLOPs. */
bool sc__cost_formula_computes(sc__cost_formula f);

#endif /* SYMCUT_GRAPH_COST_H */
