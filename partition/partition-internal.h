/* symcut — the partitioner's private representation, shared by the
 * partition sources.
 * Included by partition/ only.  Not installed.  (What the benchmark and
 * the tests need is partition/partition-probe.h.) */
#ifndef SYMCUT_PARTITION_INTERNAL_H
#define SYMCUT_PARTITION_INTERNAL_H

#include <igraph.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "partition/partition-probe.h"
#include "util/internal.h"

/* What a node's value is, for weighing. */
enum {
    SC__PV_TENSOR,
    SC__PV_SYMINT, /* also SymBool */
    SC__PV_TUPLE,
    SC__PV_OTHER   /* unknown or no result */
};

/* Internal per-node flags. */
enum {
    SC__PN_ALIVE = 1u << 0,     /* survived DCE */
    SC__PN_CANON = 1u << 1,     /* alive and its own CSE representative */
    SC__PN_OUT_USED = 1u << 2,  /* the output list uses it */
    SC__PN_SRC = 1u << 3,       /* source -> X_in */
    SC__PN_IN_SINK = 1u << 4,   /* X_in -> sink (no X_in -> X_out) */
    SC__PN_OUT_SINK = 1u << 5,  /* X_out -> sink */
    SC__PN_IN_FW = 1u << 6,     /* in the forward graph */
    SC__PN_IN_BW = 1u << 7,     /* computed in the backward graph */
    SC__PN_SAVED = 1u << 8,     /* saved (tensor or symint) */
    SC__PN_BW_INPUT = 1u << 9,  /* a backward placeholder */
    SC__PN_PRIMAL = 1u << 10,
    SC__PN_TANGENT = 1u << 11,
    SC__PN_PARAM = 1u << 12,
    SC__PN_WRITTEN = 1u << 13,  /* prepare.c's scratch: an op writes it */
    SC__PN_BINDING = 1u << 14   /* saved so that the backward binds a symbol */
};

typedef struct sc__pnode {
    sc_node_id rep;     /* CSE representative; SC_NODE_NONE when dead */
    int32_t dist;       /* distance to the backward */
    int64_t bytes;      /* at the hints; -1: not a tensor */
    int64_t weight;     /* X_in -> X_out; -1 infinite */
    sc_expr *bytes_expr;/* numel * itemsize; NULL: not a tensor */
    uint16_t flags;     /* SC__PN_* */
    uint8_t cls;        /* SC_PARTITION_REQUIRED_FW, ... */
    uint8_t vkind;      /* SC__PV_* */
    uint8_t ban;        /* sc_partition_ban */
    uint8_t tag;        /* sc_partition_tag */
    uint8_t place;      /* sc_partition_place */
    uint8_t ptag;       /* SC__PT_*: pytorch-2.13's partitioner placement */
} sc__pnode;

/* Where torch 2.13's extraction lets a node go (_must_be_in_forward,
 * _must_be_in_backward; classify.c sets them, extract.c reads them). */
enum {
    SC__PT_FW = 1u << 0, /* never computed by the backward: tagged
                            must_be_in_forward, or a write that is not
                            tagged must_be_in_backward */
    SC__PT_BW = 1u << 1  /* tagged must_be_in_backward: never in the
                            forward, and required by the backward */
};

/* A SymInt the extraction synthesized so that the backward can bind a
 * symbol (extract.c, plan_bindings): a `sym_size.int(src, dim)` node of
 * the forward graph, saved (a forward output) and a backward placeholder
 * under the same name.  The joint graph has no such node, so it is not in
 * saved_symints (joint nodes); the saved SymInts of the graphs are the
 * binding placeholders among saved_symints, then these, then the other
 * saved_symints (PyTorch's order). */
typedef struct sc__synth_binding {
    char name[40];    /* its name in both graphs: sym_size, sym_size_1, ... */
    sc_node_id src;   /* the joint node it takes the size of: a primal, or a
                         value the forward computes anyway (canonical) */
    size_t dim;       /* the dim of src */
    sc_expr *sym;     /* the symbol it binds (src's size at dim) */
} sc__synth_binding;

/* Growable list of node ids (helpers.c). */
typedef struct sc__idlist {
    sc_node_id *ids;
    size_t n, cap;
} sc__idlist;

bool sc__idlist_push(sc__idlist *l, sc_node_id id);
void sc__idlist_free(sc__idlist *l);

struct sc_partition {
    const sc_graph *g;
    sc_ctx *ctx;
    sc_env *env;
    sc_partition_policy policy;
    unsigned flags;
    size_t n;              /* joint nodes */
    sc__pnode *nodes;
    /* users of canonical nodes in the CSE'd joint: users[uoff[i] ..
     * uoff[i+1]), increasing ids (each once) */
    size_t *uoff;
    sc_node_id *users;
    size_t nfwd_out;       /* forward outputs of the joint */
    size_t nparams;
    int64_t unbacked_fallback;
    /* the ban-rule settings, PyTorch's defaults resolved (run.c) */
    unsigned rules_off;
    int32_t max_dist_from_bw, long_chain_limit;
    sc_symmap *binding;    /* symbol -> value at the hints */

    sc__idlist saved_tensors, saved_symints, recomputed;
    /* the synthesized SymInts, in the order they are saved (nsynth 0:
     * none; then synth is NULL) */
    sc__synth_binding *synth;
    size_t nsynth;
    int64_t saved_bytes, trivial_bytes, cut_value, flops;
    size_t flops_unknown;
    sc_expr *saved_expr, *trivial_expr;
    size_t net_vertices, net_edges;
    /* the network igraph solved (the reduced one unless
     * SC__PARTITION_FULL_NETWORK; sc__partition_network_solved) */
    size_t net_solved_vertices, net_solved_edges;
    size_t ndead, nfolded;
    size_t nrng;           /* sc__partition_rng_functionalized */
    double seconds[SC_PARTITION_PHASE_COUNT_];

    char **warnings;
    size_t nwarnings, warnings_cap;

    sc_graph *fw, *bw;
    /* during sc_partition_run only */
    const sc_partition_options *opts;
};

/* Add a warning (printf-style); false on exhaustion (helpers.c). */
bool sc__partition_warn(sc_partition *p, const char *fmt, ...)
    SC__PRINTF(2, 3);

/* The node ids a value refers to, recursively (lists): calls fn for each. */
typedef void (*sc__node_visit_fn)(sc_node_id id, void *user);
void sc__value_visit_nodes(const sc_value *v, sc__node_visit_fn fn,
                           void *user);
/* The same for every argument of node id of the joint (nothing for a
 * placeholder), reading the graph's nodes directly: the accessors'
 * checks and calls per argument cost more than the visit. */
void sc__partition_visit_args(const sc_partition *p, sc_node_id id,
                              sc__node_visit_fn fn, void *user);

/* Phase 0: DCE, CSE, users, sizes at the hints (prepare.c). */
sc_status sc__partition_prepare(sc_partition *p,
                                const sc_partition_options *opts,
                                sc_error *err);
/* An integer expression at the hints (prepare.c). */
sc_status sc__partition_eval(sc_partition *p, sc_expr *e, int64_t *out,
                             sc_error *err);
/* Phase 1: classification, distances, bans, weights (classify.c). */
sc_status sc__partition_classify(sc_partition *p, sc_error *err);

/* Phases 2-3: network, max-flow, saved set (network.c). */
sc_status sc__partition_cut(sc_partition *p, sc_error *err);
/* Phase 4: placement, graphs, totals (extract.c). */
sc_status sc__partition_extract(sc_partition *p, sc_error *err);

/* torch 2.13's operator lists (oplists-2.13.c, generated): a packet
 * ("torch.ops.aten.add", "operator.mul") and its SC__OPL_* bits. */
enum {
    SC__OPL_RECOMPUTABLE = 1u << 0,
    SC__OPL_VIEW = 1u << 1,
    SC__OPL_RANDOM = 1u << 2,
    SC__OPL_COMPUTE_INTENSIVE = 1u << 3
};
typedef struct sc__oplist_entry {
    const char *packet;
    unsigned bits;
} sc__oplist_entry;
extern const sc__oplist_entry sc__oplist_2_13[];
extern const size_t sc__oplist_2_13_count;
/* The overloads torch 2.13's dead-code elimination keeps (sorted). */
extern const char *const sc__impure_2_13[];
extern const size_t sc__impure_2_13_count;
/* Those of them whose schema does not write an argument (sorted). */
extern const char *const sc__impure_unwritten_2_13[];
extern const size_t sc__impure_unwritten_2_13_count;
/* The overloads tagged nondeterministic_seeded (sorted), and whether a
 * target is one of them (classify.c). */
extern const char *const sc__seeded_2_13[];
extern const size_t sc__seeded_2_13_count;
bool sc__partition_seeded_2_13(const char *target);
/* Does the target's schema write an argument (torch 2.13's
 * _schema.is_mutable, aten and prims overloads)?  (classify.c) */
bool sc__partition_mutable_2_13(const char *target);
/* Is the target one of them ("torch.ops.aten.bernoulli.p")?  Under
 * pytorch-2.13 such a node is never dead, and the forward (and the
 * backward, where its inputs are there) keep it as torch's do
 * (classify.c). */
bool sc__partition_impure_2_13(const char *target);
/* The SC__OPL_* bits of a call's target under torch 2.13 (0: in no list;
 * operator.getitem is recomputable) (classify.c). */
unsigned sc__partition_oplist_2_13(const char *target);

/* Is e one of torch's float symbols (zfN, zufN)?  (classify.c) */
bool sc__partition_float_symbol(const sc_expr *e);

/* Is this node's op recomputable / fusible under the policy? */
bool sc__partition_recomputable(const sc_partition *p, sc_node_id id);
bool sc__partition_fusible(const sc_partition *p, sc_node_id id);

#endif /* SYMCUT_PARTITION_INTERNAL_H */
