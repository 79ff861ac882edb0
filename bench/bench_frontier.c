/* symcut benchmark — the exact memory/recompute frontier on generated
 * joint graphs.
 *
 *   bench/bench_frontier [--min N] [--max N] [--points K] [--time-limit S]
 *                        [--shape transformer|dag|both]
 *
 * For each size 1e3, 1e4, ... up to N nodes (default 1e3 to 1e6) and each
 * shape (bench/bench_partition.c's: a stack of MLP blocks with their
 * backward, and a random DAG with a backward chain), the graph is built
 * through the graph builder, then sc_frontier_compute finds the whole
 * lower convex hull (CPU seconds, vertices, max-flows, seconds per
 * max-flow), and then a K-point frontier (default 20; each budget between
 * hull vertices by the MILP with the time limit, default 2 s): CPU
 * seconds and how many points are proven optimal. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symcut/graph.h>
#include <symcut/partition.h>

#include "bench/bench-graphs.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_one(const char *shape, size_t target, size_t points,
                    double limit)
{
    gen b;
    sc_frontier *f = NULL;
    sc_frontier_options fo;
    sc_partition_options po;
    double t0, th, tp = 0;
    size_t i, nopt = 0, nhull = 0, npts = 0;

    memset(&b, 0, sizeof b);
    b.prog = "bench_frontier";
    b.rng = 0x9e3779b97f4a7c15ull ^ target;
    b.ctx = sc_ctx_new();
    b.g = sc_graph_new(b.ctx);
    if (!b.ctx || !b.g)
        exit(1);
    if (strcmp(shape, "transformer") == 0)
        transformer(&b, target);
    else
        random_dag(&b, target);
    sc_partition_options_init(&po);
    po.policy = SC_PARTITION_EXACT;
    sc_frontier_options_init(&fo);
    t0 = cpu_now();
    if (sc_frontier_compute(b.g, &po, &fo, &f, &b.err) != SC_OK)
        die(&b, "frontier");
    th = cpu_now() - t0;
    nhull = sc_frontier_point_count(f);
    printf("%-11s %9zu nodes  hull %6zu vertices %7zu max-flows %9.3f s "
           "(%.2f ms per max-flow)",
           shape, sc_graph_node_count(b.g), nhull,
           sc_frontier_maxflow_count(f), th,
           1e3 * th / (double)sc_frontier_maxflow_count(f));
    sc_frontier_free(f);
    f = NULL;
    if (points > 0) {
        fo.points = points;
        fo.milp_seconds = limit;
        t0 = cpu_now();
        if (sc_frontier_compute(b.g, &po, &fo, &f, &b.err) != SC_OK)
            die(&b, "frontier points");
        tp = cpu_now() - t0;
        npts = sc_frontier_point_count(f);
        for (i = 0; i < npts; i++) {
            sc_frontier_point pt;
            sc_frontier_point_get(f, i, &pt);
            nopt += pt.optimal;
        }
        printf("  %zu-point frontier %9.3f s (%zu points, %zu proven "
               "optimal)",
               points, tp, npts, nopt);
        sc_frontier_free(f);
    }
    printf("\n");
    fflush(stdout);
    sc_graph_free(b.g);
    sc_ctx_free(b.ctx);
}

int main(int argc, char **argv)
{
    size_t lo = 1000, hi = 1000000, points = 20, n;
    double limit = 2;
    const char *shape = "both";
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min") == 0 && i + 1 < argc)
            lo = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            hi = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--points") == 0 && i + 1 < argc)
            points = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc)
            limit = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc)
            shape = argv[++i];
        else {
            fprintf(stderr,
                    "usage: bench_frontier [--min N] [--max N] [--points K] "
                    "[--time-limit S] [--shape transformer|dag|both]\n");
            return 2;
        }
    }
    for (n = lo; n <= hi; n *= 10) {
        if (strcmp(shape, "dag") != 0)
            run_one("transformer", n, points, limit);
        if (strcmp(shape, "transformer") != 0)
            run_one("dag", n, points, limit);
    }
    return 0;
}
