/* symcut — the partitioner's probes: private option bits, the flow
 * network as an igraph graph and the phase clock, for measuring and
 * testing the partitioner from outside it.
 * Included by partition/, bench/bench_partition.c and
 * tests/check_partition.c only.  Not installed. */
#ifndef SYMCUT_PARTITION_PROBE_H
#define SYMCUT_PARTITION_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include <igraph.h>

#include <symcut/partition.h>

/* A private bit of sc_partition_options.flags: solve the full flow
 * network as PyTorch builds it instead of the reduced one (network.c).
 * The saved set is the same; tests compare the two. */
#define SC__PARTITION_FULL_NETWORK (1u << 15)
/* Another: solve the reduced network in pieces of a few vertices (the
 * tests exercise the packing on small graphs). */
#define SC__PARTITION_SMALL_PIECES (1u << 14)

/* The flow network of a classified partition as an igraph graph with its
 * capacities (the caller destroys both) and the value of infinity; source
 * vertex 0, sink 1.  reduced false: the full network as PyTorch builds it
 * (node k's X_in 2 + 2k and X_out 3 + 2k); true: the reduced network the
 * partitioner solves (contracted, pruned; network.c).  Used by the
 * benchmark to time a bare igraph_maxflow. */
sc_status sc__partition_network(sc_partition *p, bool reduced,
                                igraph_t *graph, igraph_vector_t *cap,
                                double *inf, sc_error *err);

/* The vertices and edges of the network igraph solved (the reduced one
 * unless SC__PARTITION_FULL_NETWORK); each pointer may be NULL. */
void sc__partition_network_solved(const sc_partition *p, size_t *vertices,
                                  size_t *edges);

/* Under pytorch-2.13: the random ops tagged to recompute that both
 * graphs run, which torch 2.13's functionalize_rng_ops rewrites (the
 * forward calls run_and_save_rng_state and two getitems instead of the
 * op and returns the RNG state, the backward takes the state as one more
 * input and calls run_with_rng_state instead).  symcut's graphs keep the
 * op, so torch's forward has 2 nodes (2 calls) more per such op and its
 * backward 1 node (an input) more; the saved set is the same.  0 under
 * the other policies (extract.c). */
size_t sc__partition_rng_functionalized(const sc_partition *p);

/* Seconds of CPU time of the calling thread (a monotonic clock where
 * there is none; helpers.c). */
double sc__partition_now(void);

#endif /* SYMCUT_PARTITION_PROBE_H */
