/* symcut benchmarks — the generated joint graphs the partition and
 * frontier benchmarks share: a stack of MLP blocks with their backward,
 * and a random DAG with a backward chain, built through the graph
 * builder.
 * Included by bench/bench_partition.c and bench/bench_frontier.c only. */
#ifndef SYMCUT_BENCH_GRAPHS_H
#define SYMCUT_BENCH_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include <symcut/graph.h>

typedef struct gen {
    const char *prog; /* the benchmark's name, for die() */
    sc_ctx *ctx;
    sc_graph *g;
    sc_error err;
    size_t count;
    uint64_t rng;
} gen;

/* Print "PROG: WHAT: the error's message" and exit 1. */
void die(gen *b, const char *what);

/* Blocks of h + fc2(gelu(fc1(h))) and their backward, about target
 * nodes in b->g. */
void transformer(gen *b, size_t target);

/* A random DAG of about target nodes (b->rng seeds it). */
void random_dag(gen *b, size_t target);

#endif
