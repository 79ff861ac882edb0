/* symcut — the memory/recompute frontier's private interface: the
 * validity-only network, its lower convex hull (frontier.c), the MILP of
 * a budget between two hull vertices (milp.c) and the budgeted cut of
 * the exact policy.
 * Included by partition/run.c, partition/frontier.c and partition/milp.c
 * only.  Not installed. */
#ifndef SYMCUT_PARTITION_FRONTIER_H
#define SYMCUT_PARTITION_FRONTIER_H

#include <stdbool.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/partition.h>

/* Phases 2-3 of sc_partition_run under a memory budget (opts->memory_
 * budget_kind is not SC_PARTITION_BUDGET_NONE) for every policy but
 * pytorch-2.13: exact saves the valid set of least recompute cost within
 * a budget in bytes or as a ratio (doc/partition.md, "Memory budget");
 * SC_PARTITION_BUDGET_SAVED (exact and pytorch-1.13) saves the given set
 * after checking it is valid; pytorch-1.13 with another kind is
 * SC_ERR_INVALID.  Fills the saved lists as sc__partition_cut does. */
sc_status sc__frontier_budget_cut(sc_partition *p, sc_error *err);

/* How a node may be recomputed (sc__fnet.src). */
enum {
    SC__FSRC_NONE = 0, /* no source arc: nothing to pay (placeholders of
                          the backward, IN_SINK nodes) */
    SC__FSRC_COST = 1, /* source -> X_in of capacity lambda * cost */
    SC__FSRC_HARD = 2  /* source -> X_in infinite: never recomputed */
};

/* The validity-only network of a classified exact-policy partition:
 * node k (a canonical joint node ids[k]) has vertices vin[k] and vout[k]
 * (vout -1 for a node tied to the sink, which has only X_in); vertex 0 is
 * the source, 1 the sink.  Edges: X_in -> X_out of capacity bytes[k]
 * (-1 infinite: not a tensor, nothing to save), source -> X_in (src[k]),
 * X_out -> X_in of every user (infinite), X_out -> sink for a gradient
 * output, X_in -> sink for a node tied to the sink.  Capacities are
 * bytes * w1 and cost * w2 for the integer weights of a probe. */
typedef struct sc__fnet {
    size_t nk;            /* nodes */
    sc_node_id *ids;      /* k -> joint node */
    int32_t *kof;         /* joint node -> k, -1 */
    int32_t *vin, *vout;
    int64_t *bytes;       /* -1: infinite */
    uint64_t *cost, *flops;
    uint8_t *src;         /* SC__FSRC_* */
    uint8_t *sink;        /* 1: X_in -> sink; 2: X_out -> sink */
    uint8_t *symint;      /* a SymInt (saved_symints, not bytes) */
    uint8_t *random;      /* a random op the forward runs (replayed when
                             recomputed) */
    size_t nv;            /* vertices */
    /* edges, with CSR adjacency both ways */
    size_t ne;
    int32_t *ef, *et;     /* from, to */
    int32_t *ek;          /* the node of a bytes or cost edge, else -1 */
    uint8_t *ekind;       /* 0 infinite, 1 bytes, 2 cost */
    size_t *ooff, *ioff;
    int32_t *oe, *ie;     /* edge ids */
    /* arguments of node k (canonical, each once): pk[poff[k]..poff[k+1]) */
    size_t *poff;
    int32_t *pk;
    uint64_t mtot, ctot;  /* sums of the finite bytes, of the costs */
    uint64_t cconst;      /* cost of the nodes tied to the sink that the
                             forward computes too (must_recompute) */
    uint64_t fconst;      /* ... and their FLOPs */
    uint64_t ftot;        /* FLOPs of the nodes with a cost arc */
} sc__fnet;

/* A decision scored: is it valid, its saved bytes (tensors, at the
 * hints), recompute cost and FLOPs, saved tensors and symints. */
typedef struct sc__fscore {
    bool valid;
    int32_t bad_k;        /* !valid: the node that would be recomputed */
    uint64_t bytes, cost, flops;
    size_t ntensors, nsymints;
    size_t nrandom;       /* random ops recomputed (replayed) */
} sc__fscore;

/* The least sink side that saved[k] (1: saved) leaves: st[k] bit 1 when
 * the backward needs node k's value (X_out on the sink side), bit 2 when
 * it computes it (X_in too). */
sc_status sc__fnet_sides(const sc__fnet *net, const uint8_t *saved,
                         uint8_t *st, sc_error *err);

/* Score the saved set saved[k] (1: saved) on net: the backward computes
 * what it needs from the saved values (the least sink side); saved values
 * it does not read are dropped from *saved_out (may be NULL; the
 * effective saved set, 1 per saved node). */
sc_status sc__fnet_score(const sc__fnet *net, const uint8_t *saved,
                         sc__fscore *out, uint8_t *saved_out,
                         sc_error *err);

/* A budget between hull vertices: minimize the recompute cost with saved
 * bytes <= budget by GLPK's branch and cut (milp.c), warm-started by
 * start (a valid saved set within the budget), for at most seconds.
 * fixed (NULL: none) fixes vertices on the source (0) or sink (1) side,
 * -1 leaves them free: the restricted problem between two nested cuts.
 * *best receives the best saved set found (at worst start), *proven
 * whether GLPK proved it optimal (for the restricted problem when
 * fixed). */
sc_status sc__frontier_milp(const sc__fnet *net, uint64_t budget,
                            const uint8_t *start, const int8_t *fixed,
                            double seconds, uint8_t *best, bool *proven,
                            sc_error *err);

#endif /* SYMCUT_PARTITION_FRONTIER_H */
