/* symcut benchmark — the reader and the writer of PyTorch's graph text.
 *
 *   bench/bench_scale [--repeat N] FILE...
 *
 * For each FILE (a graph text: make large ones with bench/bench_scale.sh,
 * `symcut random` or `symcut joint`), the text is read into memory once,
 * then parsed with sc_graph_read_text and printed with
 * sc_graph_write_text N times (default 3); printed per file: its size,
 * nodes, the best read and write times (CPU time of the process,
 * CLOCK_PROCESS_CPUTIME_ID, so that a loaded machine distorts less) and
 * the rates in MB/s (10^6 bytes of the text per second), and whether
 * the written text is the file byte for byte.  Not a test: it asserts
 * nothing but that reading succeeds. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symcut/graph.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, r;
    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *nb;
            cap = cap ? 2 * cap : 1 << 20;
            nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    int repeat = 3, i, k, status = 0;

    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        if (repeat < 1)
            repeat = 1;
        argv += 2;
        argc -= 2;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: bench_scale [--repeat N] FILE...\n");
        return 1;
    }
    printf("%-28s %9s %9s %8s %8s %8s %8s %s\n", "file", "MB", "nodes",
           "read s", "MB/s", "write s", "MB/s", "same");
    for (i = 1; i < argc; i++) {
        size_t len = 0, wlen = 0;
        char *text = slurp(argv[i], &len), *out = NULL;
        double best_r = 1e30, best_w = 1e30, t;
        size_t nodes = 0;
        bool same = false;
        const char *base = strrchr(argv[i], '/');

        if (!text) {
            fprintf(stderr, "bench_scale: cannot read %s\n", argv[i]);
            status = 1;
            continue;
        }
        for (k = 0; k < repeat; k++) {
            sc_ctx *ctx = sc_ctx_new();
            sc_graph *g = NULL;
            sc_error err;
            sc_error_init(&err);
            t = cpu_now();
            if (sc_graph_read_text(ctx, text, len, argv[i], NULL, &g,
                                   &err) != SC_OK) {
                fprintf(stderr, "bench_scale: %s\n", err.message);
                sc_ctx_free(ctx);
                status = 1;
                break;
            }
            t = cpu_now() - t;
            if (t < best_r)
                best_r = t;
            nodes = sc_graph_node_count(g);
            t = cpu_now();
            if (sc_graph_write_text(g, NULL, &out, &wlen, &err) != SC_OK) {
                fprintf(stderr, "bench_scale: %s\n", err.message);
                status = 1;
            }
            t = cpu_now() - t;
            if (t < best_w)
                best_w = t;
            same = out && wlen == len && memcmp(out, text, len) == 0;
            free(out);
            out = NULL;
            sc_graph_free(g);
            sc_ctx_free(ctx);
        }
        if (best_r < 1e30)
            printf("%-28s %9.1f %9zu %8.3f %8.0f %8.3f %8.0f %s\n",
                   base ? base + 1 : argv[i], (double)len / 1e6, nodes,
                   best_r, (double)len / 1e6 / best_r, best_w,
                   (double)wlen / 1e6 / best_w, same ? "yes" : "no");
        free(text);
    }
    return status;
}
