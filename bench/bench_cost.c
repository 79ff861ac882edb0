/* symcut benchmark — the recompute cost of every node and the predicted
 * (and, with --measure, measured) peak memory of forward/backward pairs.
 *
 *   bench/bench_cost [--measure] FW BW [FW BW ...]
 *
 * Each pair (a partition's forward and backward graphs as text, e.g. the
 * zoo's examples/zoo/NAME.forward.txt / .backward.txt, or large ones that
 * `bench/bench_partition --dump PREFIX` writes as PREFIX-SHAPE-N.fw/.bw)
 * is read into one context; then, at the graphs' hints, printed per pair:
 * its nodes, the time of sc_node_cost_eval over every node of both graphs
 * (per node), of sc_peak_predict, and with --measure of sc_peak_measure
 * (which runs the kernels), with the peak each finds.  Each timing repeats
 * until it took 0.2 s of CPU time and gives the mean. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symcut/graph.h>
#include <symcut/interp.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static sc_graph *read_or_die(sc_ctx *ctx, const char *path)
{
    sc_graph *g = NULL;
    sc_error err;
    if (sc_graph_read_file(ctx, path, NULL, &g, &err) != SC_OK) {
        char msg[1024];
        sc_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "bench_cost: %s\n", msg);
        exit(1);
    }
    return g;
}

static void die(const char *what, const sc_error *err)
{
    fprintf(stderr, "bench_cost: %s: %s\n", what, err->message);
    exit(1);
}

/* The hints of both graphs as a binding. */
static sc_symmap *hints(sc_ctx *ctx, const sc_graph *a, const sc_graph *b)
{
    const sc_graph *gs[2] = {a, b};
    sc_symmap *m = sc_symmap_new(ctx);
    sc_error err;
    for (int k = 0; k < 2; k++) {
        size_t n = sc_graph_symbols(gs[k], NULL, 0);
        sc_expr **syms = calloc(n + 1, sizeof *syms);
        n = sc_graph_symbols(gs[k], syms, n);
        for (size_t i = 0; i < n; i++) {
            int64_t v;
            if (sc_graph_get_hint(gs[k], syms[i], &v) &&
                sc_symmap_set_si(m, syms[i], v, &err) != SC_OK)
                die("hints", &err);
        }
        free(syms);
    }
    return m;
}

static void bench_pair(const char *fwp, const char *bwp, bool measure)
{
    sc_ctx *ctx = sc_ctx_new();
    sc_graph *fw = read_or_die(ctx, fwp), *bw = read_or_die(ctx, bwp);
    sc_symmap *m = hints(ctx, fw, bw);
    size_t nodes = sc_graph_node_count(fw) + sc_graph_node_count(bw);
    const sc_graph *gs[2] = {fw, bw};
    sc_peak_report pr, mr;
    sc_error err;
    double t0, t, cost_s, pred_s, meas_s = 0;
    long reps;
    unsigned long long total = 0;

    for (reps = 0, t0 = cpu_now(); (t = cpu_now() - t0) < 0.2 || !reps;
         reps++)
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < sc_graph_node_count(gs[k]); i++) {
                sc_node_cost c;
                if (sc_node_cost_eval(gs[k], (sc_node_id)i, m, &c, &err) !=
                    SC_OK)
                    die(fwp, &err);
                total += c.cost;
            }
    cost_s = t / (double)reps;
    for (reps = 0, t0 = cpu_now(); (t = cpu_now() - t0) < 0.2 || !reps;
         reps++)
        if (sc_peak_predict(fw, bw, m, 0, &pr, &err) != SC_OK)
            die(fwp, &err);
    pred_s = t / (double)reps;
    if (measure) {
        sc_peak_options po;
        sc_peak_options_init(&po);
        for (reps = 0, t0 = cpu_now(); (t = cpu_now() - t0) < 0.2 || !reps;
             reps++)
            if (sc_peak_measure(fw, bw, &po, &mr, &err) != SC_OK)
                die(fwp, &err);
        meas_s = t / (double)reps;
    }
    printf("%-44s %9zu %12.1f %12.6f %14llu", fwp, nodes,
           cost_s / (double)nodes * 1e9, pred_s,
           (unsigned long long)pr.peak_bytes);
    if (measure)
        printf(" %12.6f %14llu%s", meas_s, (unsigned long long)mr.peak_bytes,
               mr.peak_bytes == pr.peak_bytes ? "" : " (differs)");
    printf("\n");
    (void)total;
    sc_symmap_free(m);
    sc_graph_free(bw);
    sc_graph_free(fw);
    sc_ctx_free(ctx);
}

int main(int argc, char **argv)
{
    bool measure = false;
    int i = 1;
    if (i < argc && strcmp(argv[i], "--measure") == 0) {
        measure = true;
        i++;
    }
    if (argc - i < 2 || (argc - i) % 2) {
        fprintf(stderr, "usage: bench/bench_cost [--measure] FW BW "
                        "[FW BW ...]\n");
        return 1;
    }
    printf("%-44s %9s %12s %12s %14s", "forward graph", "nodes",
           "cost ns/node", "predict s", "peak bytes");
    if (measure)
        printf(" %12s %14s", "measure s", "measured");
    printf("\n");
    for (; i + 1 < argc; i += 2)
        bench_pair(argv[i], argv[i + 1], measure);
    return 0;
}
