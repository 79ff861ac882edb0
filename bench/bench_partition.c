/* symcut benchmark — the min-cut partitioner on generated joint graphs.
 *
 *   bench/bench_partition [--min N] [--max N] [--policy P]
 *                         [--shape transformer|dag|both] [--read]
 *                         [--no-bare] [--no-graphs] [--full-network]
 *                         [--dump PREFIX]
 *
 * For each size 1e3, 1e4, ... up to N (default 1e6) nodes (from --min,
 * default 1e3) and each shape
 * (a stack of transformer-like MLP blocks with their backward, and a
 * random DAG of pointwise ops, matrix products and reductions with a
 * backward), the graph is built through the graph builder (and, with
 * --read, written as text and read back), then partitioned.  Each size
 * runs in its own process so that the peak memory (getrusage) is that
 * size's.  Printed per row: nodes, the CPU time of every phase, the whole
 * partition (CPU and wall clock), a bare igraph_maxflow on the full flow
 * network as PyTorch builds it (the partitioner itself solves a reduced
 * network with the same saved set, whose size is printed below the row),
 * their ratio, and the peak resident memory after the partition.
 * --dump PREFIX writes the forward and backward graphs as text to
 * PREFIX-SHAPE-NODES.fw and .bw, the report as JSON without timings to
 * .json and the joint graph colored by place as DOT to .dot (to check
 * that a change of the partitioner leaves its results alone).
 * --no-bare skips the bare max-flow (quadratic in igraph on some shapes);
 * --no-graphs decides without building the forward and backward graphs
 * (SC_PARTITION_NO_GRAPHS); --full-network makes the partitioner solve
 * the full network in one igraph call instead of the reduced one
 * (SC__PARTITION_FULL_NETWORK; the saved set is the same). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <igraph.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "partition/partition-probe.h"

#include "bench/bench-graphs.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Write graph g as text, or (g NULL) the partition's report as JSON
 * (ext "json", without timings) or DOT (ext "dot", every node's place). */
static void dump(gen *b, const sc_partition *p, const sc_graph *g,
                 const char *prefix, const char *shape, size_t target,
                 const char *ext)
{
    char path[4096], *text;
    size_t len;
    sc_status st;
    FILE *f;
    snprintf(path, sizeof path, "%s-%s-%zu.%s", prefix, shape, target, ext);
    if (g)
        st = sc_graph_write_text(g, NULL, &text, &len, &b->err);
    else if (strcmp(ext, "json") == 0)
        st = sc_partition_write_json(p, SC_PARTITION_REPORT_NO_TIMINGS, &text,
                                     &len, &b->err);
    else
        st = sc_partition_write_dot(p, SC_PARTITION_REPORT_NO_TIMINGS, &text,
                                    &len, &b->err);
    if (st != SC_OK)
        die(b, "write");
    f = fopen(path, "w");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "bench_partition: cannot write %s\n", path);
        exit(1);
    }
    free(text);
}

static void run_one(const char *shape, size_t target,
                    sc_partition_policy policy, bool do_read, bool do_bare,
                    unsigned flags, const char *dump_prefix)
{
    gen b;
    sc_partition_options o;
    sc_partition *p = NULL;
    double t0, t_build, t_read = 0, total = 0, bare = 0, w0, wall;
    double peak_part;
    igraph_t ig;
    igraph_vector_t cap, flow;
    igraph_real_t value;
    struct rusage ru;
    long faults;
    size_t i, solved_vertices, solved_edges;

    memset(&b, 0, sizeof b);
    b.prog = "bench_partition";
    b.rng = 0x9e3779b97f4a7c15ull ^ target;
    b.ctx = sc_ctx_new();
    b.g = sc_graph_new(b.ctx);
    if (!b.ctx || !b.g)
        exit(1);
    sc_error_init(&b.err);
    t0 = sc__partition_now();
    if (strcmp(shape, "transformer") == 0)
        transformer(&b, target);
    else
        random_dag(&b, target);
    t_build = sc__partition_now() - t0;
    if (do_read) {
        char *text;
        size_t len;
        sc_graph *back = NULL;
        if (sc_graph_write_text(b.g, NULL, &text, &len, &b.err) != SC_OK)
            die(&b, "write");
        t0 = sc__partition_now();
        if (sc_graph_read_text(b.ctx, text, len, "bench", NULL, &back,
                               &b.err) != SC_OK)
            die(&b, "read");
        t_read = sc__partition_now() - t0;
        free(text);
        sc_graph_free(b.g);
        b.g = back;
    }
    sc_partition_options_init(&o);
    o.policy = policy;
    o.flags = flags;
    getrusage(RUSAGE_SELF, &ru);
    faults = ru.ru_minflt;
    w0 = wall_now();
    if (sc_partition_run(b.g, &o, &p, &b.err) != SC_OK)
        die(&b, "partition");
    wall = wall_now() - w0;
    getrusage(RUSAGE_SELF, &ru);
    peak_part = (double)ru.ru_maxrss / 1024.0;
    faults = ru.ru_minflt - faults;
    for (i = 0; i < SC_PARTITION_PHASE_COUNT_; i++)
        total += sc_partition_phase_seconds(p, (sc_partition_phase)i);

    if (do_bare) {
        if (sc__partition_network(p, false, &ig, &cap, NULL, &b.err) !=
            SC_OK)
            die(&b, "network");
        igraph_vector_init(&flow, 0);
        t0 = sc__partition_now();
        igraph_maxflow(&ig, &value, &flow, NULL, NULL, NULL, 0, 1, &cap,
                       NULL);
        bare = sc__partition_now() - t0;
        igraph_vector_destroy(&flow);
        igraph_vector_destroy(&cap);
        igraph_destroy(&ig);
    }

    printf("%-11s %8zu %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f "
           "%7.3f %7.3f ",
           shape, sc_graph_node_count(b.g), t_build, t_read,
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_PREPARE),
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_CLASSIFY),
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_NETWORK),
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_MAXFLOW),
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_CUT),
           sc_partition_phase_seconds(p, SC_PARTITION_PHASE_EXTRACT), total,
           wall);
    if (do_bare)
        printf("%7.3f %5.2f ", bare, total / (bare > 0 ? bare : 1e-9));
    else
        printf("%7s %5s ", "-", "-");
    printf("%7.0f %7ld %6zu %6zu\n", peak_part, faults,
           sc_partition_saved_tensor_count(p),
           sc_partition_recomputed_count(p));
    sc__partition_network_solved(p, &solved_vertices, &solved_edges);
    printf("  network: full %zu vertices %zu edges; solved %zu "
           "vertices %zu edges\n",
           sc_partition_network_vertex_count(p),
           sc_partition_network_edge_count(p),
           solved_vertices, solved_edges);
    fflush(stdout);
    if (dump_prefix) {
        if (sc_partition_forward(p))
            dump(&b, p, sc_partition_forward(p), dump_prefix, shape, target,
                 "fw");
        if (sc_partition_backward(p))
            dump(&b, p, sc_partition_backward(p), dump_prefix, shape, target,
                 "bw");
        dump(&b, p, NULL, dump_prefix, shape, target, "json");
        dump(&b, p, NULL, dump_prefix, shape, target, "dot");
    }
    sc_partition_free(p);
    sc_graph_free(b.g);
    sc_ctx_free(b.ctx);
}

int main(int argc, char **argv)
{
    size_t min = 1000, max = 1000000, n;
    const char *shapes = "both", *dump_prefix = NULL;
    sc_partition_policy policy = SC_PARTITION_PYTORCH;
    bool do_read = false, do_bare = true;
    unsigned flags = 0;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            max = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--min") == 0 && i + 1 < argc)
            min = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump_prefix = argv[++i];
        else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            shapes = argv[++i];
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            if (!sc_partition_policy_from_name(argv[++i], &policy)) {
                fprintf(stderr, "unknown policy %s\n", argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--read") == 0)
            do_read = true;
        else if (strcmp(argv[i], "--no-bare") == 0)
            do_bare = false;
        else if (strcmp(argv[i], "--no-graphs") == 0)
            flags |= SC_PARTITION_NO_GRAPHS;
        else if (strcmp(argv[i], "--full-network") == 0)
            flags |= SC__PARTITION_FULL_NETWORK;
        else {
            fprintf(stderr, "usage: %s [--min N] [--max N] "
                            "[--shape transformer|dag|"
                            "both] [--policy P] [--read] [--no-bare]\n"
                            "       [--no-graphs] [--full-network] "
                            "[--dump PREFIX]\n",
                    argv[0]);
            return 1;
        }
    }
    printf("policy %s; CPU seconds (build, read, phases, bare); 'partit' = "
           "all phases, 'wall' = its wall-clock time; 'bare' = one "
           "igraph_maxflow on the full network as PyTorch builds it, "
           "ratio = partit / bare; peakMB = peak RSS after the partition "
           "(joint graph included); faults = minor page faults during the "
           "partition\n",
           sc_partition_policy_name(policy));
    printf("%-11s %8s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %5s %7s "
           "%7s %6s %6s\n",
           "shape", "nodes", "build", "read", "prepare", "classif",
           "network", "maxflow", "cut", "extract", "partit", "wall", "bare",
           "ratio", "peakMB", "faults", "saved", "recomp");
    fflush(stdout);
    for (n = 1000; n <= max; n *= 10) {
        if (n < min)
            continue;
        int s;
        for (s = 0; s < 2; s++) {
            const char *shape = s == 0 ? "transformer" : "dag";
            pid_t pid;
            if (strcmp(shapes, "both") != 0 && strcmp(shapes, shape) != 0)
                continue;
            pid = fork();
            if (pid == 0) {
                run_one(shape, n, policy, do_read, do_bare, flags,
                        dump_prefix);
                _exit(0);
            }
            if (pid < 0 || waitpid(pid, NULL, 0) < 0)
                return 1;
        }
    }
    return 0;
}
