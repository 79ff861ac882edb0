/* symcut — concurrent use: several threads, each with its own context,
 * partition the bundled examples (examples/NAME.joint.txt) many times, under
 * several policies, on the reduced network (solved in pieces) and on the
 * full one; every result (the JSON report without timings, the forward
 * and the backward text) must be byte for byte the single-threaded one.
 * Then igraph's fatal-error handler, raised inside symcut's igraph
 * section, must come back as an error status instead of aborting the
 * process, and partitions must still work afterwards.
 *
 * A stand-alone test program (no Check), so that .ci/stage-tsan.sh can
 * build and run it alone under ThreadSanitizer.  Environment:
 *   SYMCUT_THREADS  threads (default 4)
 *   SYMCUT_ROUNDS   passes over the examples per thread (default 12)
 *   top_srcdir      the source tree (default ".")
 * Prints what it ran; exit status 0 on success, 1 on a failure. */
#include <config.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <igraph.h>

#include <symcut/graph.h>
#include <symcut/partition.h>
#include <symcut/symint.h>

#include "partition/igraph-section.h"
#include "partition/partition-probe.h"

static const char *const examples[] = {
    "attention_single_head", "fn_mm_gelu_sum", "fn_mm_gelu_sum_dyn",
    "lm_head_ce",            "lstm_module",    "mlp_gelu",
    "mlp_gelu_dyn",          "residual_mlp_16", "small_cnn",
    "transformer_encoder_layer", "two_output_mlp",
};
#define NEXAMPLES (sizeof examples / sizeof examples[0])

/* The variants every example is partitioned with. */
static const struct {
    sc_partition_policy policy;
    unsigned flags;
} variants[] = {
    {SC_PARTITION_PYTORCH, 0},
    {SC_PARTITION_EXACT, 0},
    {SC_PARTITION_PYTORCH, SC__PARTITION_FULL_NETWORK},
    {SC_PARTITION_PYTORCH, SC__PARTITION_SMALL_PIECES},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define NJOBS (NEXAMPLES * NVARIANTS)

static char *texts[NEXAMPLES];
static size_t lens[NEXAMPLES];
static char *expected[NJOBS];

typedef struct worker {
    int index;
    long rounds;
    long done;
    int failed;
    char message[512];
} worker;

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        size_t got;
        if (n + 4096 > cap) {
            char *nb = realloc(buf, cap = 2 * cap + 4096);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static char *concat3(char *a, char *b, char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 3);
    if (s) {
        memcpy(s, a, la);
        s[la] = '\f';
        memcpy(s + la + 1, b, lb);
        s[la + 1 + lb] = '\f';
        memcpy(s + la + lb + 2, c, lc + 1);
    }
    free(a);
    free(b);
    free(c);
    return s;
}

/* Partition example job / NVARIANTS with variant job % NVARIANTS in ctx:
 * the report, forward and backward texts in one malloc'ed string, or NULL
 * with a message in err. */
static char *partition_one(sc_ctx *ctx, size_t job, sc_error *err)
{
    size_t ex = job / NVARIANTS, va = job % NVARIANTS;
    sc_graph *g = NULL;
    sc_partition *p = NULL;
    sc_partition_options o;
    char *report = NULL, *fw = NULL, *bw = NULL, *all = NULL;

    sc_error_init(err);
    if (sc_graph_read_text(ctx, texts[ex], lens[ex], examples[ex], NULL, &g,
                           err) != SC_OK)
        return NULL;
    sc_partition_options_init(&o);
    o.policy = variants[va].policy;
    o.flags = variants[va].flags;
    if (sc_partition_run(g, &o, &p, err) == SC_OK &&
        sc_partition_write_json(p, SC_PARTITION_REPORT_NO_TIMINGS, &report,
                                NULL, err) == SC_OK &&
        sc_graph_write_text(sc_partition_forward(p), NULL, &fw, NULL, err) ==
            SC_OK &&
        sc_graph_write_text(sc_partition_backward(p), NULL, &bw, NULL,
                            err) == SC_OK) {
        all = concat3(report, fw, bw);
        report = fw = bw = NULL;
        if (!all)
            snprintf(err->message, sizeof err->message, "out of memory");
    }
    free(report);
    free(fw);
    free(bw);
    sc_partition_free(p);
    sc_graph_free(g);
    return all;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    sc_ctx *ctx = sc_ctx_new();
    sc_error err;
    long r;
    size_t k;

    if (!ctx) {
        w->failed = 1;
        snprintf(w->message, sizeof w->message, "no context");
        return NULL;
    }
    for (r = 0; r < w->rounds && !w->failed; r++) {
        for (k = 0; k < NJOBS && !w->failed; k++) {
            /* each thread walks the jobs from its own starting point */
            size_t job = (k + (size_t)w->index * 7 + (size_t)r) % NJOBS;
            char *got = partition_one(ctx, job, &err);
            if (!got) {
                w->failed = 1;
                snprintf(w->message, sizeof w->message,
                         "%s variant %zu: %s: %.300s", examples[job / NVARIANTS],
                         job % NVARIANTS, sc_status_name(err.code),
                         err.message);
            } else if (strcmp(got, expected[job]) != 0) {
                w->failed = 1;
                snprintf(w->message, sizeof w->message,
                         "%s variant %zu: the result differs from the "
                         "single-threaded one (round %ld)",
                         examples[job / NVARIANTS], job % NVARIANTS, r);
            }
            free(got);
            w->done++;
        }
    }
    sc_ctx_free(ctx);
    return NULL;
}

static long env_long(const char *name, long dflt, long max)
{
    const char *s = getenv(name);
    char *end;
    long v;
    if (!s || !*s)
        return dflt;
    v = strtol(s, &end, 10);
    if (*end || v < 1 || v > max) {
        fprintf(stderr, "check_threads: bad %s='%s' (1..%ld)\n", name, s,
                max);
        exit(1);
    }
    return v;
}

/* ---- igraph's fatal handler inside the section ---------------------------- */

static igraph_error_t raise_fatal(void *arg)
{
    igraph_vector_t *v = arg;
    /* something on igraph's FINALLY stack, as inside any igraph function */
    IGRAPH_CHECK(igraph_vector_init(v, 10));
    IGRAPH_FINALLY(igraph_vector_destroy, v);
    IGRAPH_FATAL("check_threads: a fatal error on purpose");
    return IGRAPH_SUCCESS; /* not reached */
}

static igraph_error_t raise_error(void *arg)
{
    igraph_vector_t *v = arg;
    IGRAPH_CHECK(igraph_vector_init(v, 10));
    IGRAPH_FINALLY(igraph_vector_destroy, v);
    IGRAPH_ERROR("check_threads: an error on purpose", IGRAPH_EINVAL);
    return IGRAPH_SUCCESS; /* not reached */
}

static int check_fatal(void)
{
    igraph_vector_t v;
    sc_error err;
    sc_status st;
    int bad = 0;

    sc_error_init(&err);
    st = sc__igraph_section(raise_fatal, &v, "the fatal test", &err);
    if (st != SC_ERR_INTERNAL || !strstr(err.message, "on purpose") ||
        !strstr(err.message, "the fatal test")) {
        fprintf(stderr,
                "FAIL: igraph's fatal handler: %s '%s' (expected "
                "ERR_INTERNAL naming the reason)\n",
                sc_status_name(st), err.message);
        bad = 1;
    }
    if (IGRAPH_FINALLY_STACK_SIZE() != 0) {
        fprintf(stderr, "FAIL: igraph's FINALLY stack holds %d entries "
                        "after the fatal error\n",
                IGRAPH_FINALLY_STACK_SIZE());
        bad = 1;
    }
    /* the section dropped v from igraph's stack unfreed; it lives in this
     * frame, so it can be freed here (the leak checkers see no leak) */
    igraph_vector_destroy(&v);
    sc_error_init(&err);
    st = sc__igraph_section(raise_error, &v, "the error test", &err);
    if (st != SC_ERR_INTERNAL || !strstr(err.message, "Invalid value")) {
        fprintf(stderr, "FAIL: an igraph error: %s '%s'\n",
                sc_status_name(st), err.message);
        bad = 1;
    }
    if (IGRAPH_FINALLY_STACK_SIZE() != 0) {
        fprintf(stderr, "FAIL: igraph's FINALLY stack holds %d entries "
                        "after an error\n",
                IGRAPH_FINALLY_STACK_SIZE());
        bad = 1;
    }
    if (!bad)
        printf("igraph's fatal handler and errors inside the section: "
               "error statuses, no abort\n");
    return bad;
}

int main(void)
{
    const char *srcdir = getenv("top_srcdir");
    long nthreads = env_long("SYMCUT_THREADS", 4, 64);
    long rounds = env_long("SYMCUT_ROUNDS", 12, 1000000);
    worker *w;
    pthread_t *tid;
    sc_ctx *ctx;
    sc_error err;
    size_t k;
    long i, total = 0;
    int bad = 0;
    char path[4096];

    if (!srcdir || !*srcdir)
        srcdir = ".";
    for (k = 0; k < NEXAMPLES; k++) {
        snprintf(path, sizeof path, "%s/examples/%s.joint.txt", srcdir,
                 examples[k]);
        if (!(texts[k] = read_all(path, &lens[k]))) {
            fprintf(stderr, "check_threads: cannot read %s\n", path);
            return 1;
        }
    }
    /* the single-threaded answers */
    if (!(ctx = sc_ctx_new()))
        return 1;
    for (k = 0; k < NJOBS; k++) {
        if (!(expected[k] = partition_one(ctx, k, &err))) {
            fprintf(stderr, "check_threads: %s variant %zu: %s: %s\n",
                    examples[k / NVARIANTS], k % NVARIANTS,
                    sc_status_name(err.code), err.message);
            return 1;
        }
    }
    sc_ctx_free(ctx);

    bad |= check_fatal();

    w = calloc((size_t)nthreads, sizeof *w);
    tid = calloc((size_t)nthreads, sizeof *tid);
    if (!w || !tid)
        return 1;
    for (i = 0; i < nthreads; i++) {
        w[i].index = (int)i;
        w[i].rounds = rounds;
        if (pthread_create(&tid[i], NULL, worker_main, &w[i]) != 0) {
            fprintf(stderr, "check_threads: pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    for (i = 0; i < nthreads; i++) {
        total += w[i].done;
        if (w[i].failed) {
            fprintf(stderr, "FAIL: thread %ld: %s\n", i, w[i].message);
            bad = 1;
        }
    }
    printf("igraph %s, built with IGRAPH_THREAD_SAFE %d (the section's "
           "lock is taken either way)\n",
           IGRAPH_VERSION, IGRAPH_THREAD_SAFE);
    printf("%ld threads x %ld rounds x %zu examples x %zu variants: %ld "
           "partitions, %s\n",
           nthreads, rounds, NEXAMPLES, NVARIANTS, total,
           bad ? "FAILED" : "all equal to the single-threaded results");

    /* after the fatal error and the threads, one more in this thread */
    if (!(ctx = sc_ctx_new()))
        return 1;
    for (k = 0; k < NJOBS; k++) {
        char *got = partition_one(ctx, k, &err);
        if (!got || strcmp(got, expected[k]) != 0) {
            fprintf(stderr, "FAIL: %s variant %zu afterwards: %s\n",
                    examples[k / NVARIANTS], k % NVARIANTS,
                    got ? "differs" : err.message);
            bad = 1;
        }
        free(got);
    }
    sc_ctx_free(ctx);
    for (k = 0; k < NJOBS; k++)
        free(expected[k]);
    for (k = 0; k < NEXAMPLES; k++)
        free(texts[k]);
    free(w);
    free(tid);
    return bad;
}
