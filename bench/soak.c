/* symcut soak — partition and validate many random graphs in one process
 * and watch its resident memory.
 *
 *   bench/soak [--graphs N] [--every K] [--seed S] [--shared-context]
 *
 * Draws N (default 10000) random forward graphs (sc_graph_new_random,
 * seeds S, S+1, ...; 2-14 call nodes, symbolic sizes for half of them,
 * every feature), builds each joint graph (redrawing the same seed
 * without an op that has no derivative formula, as `symcut random` does),
 * partitions it with the default policy and validates the forward and
 * backward graphs against it (sc_validate_run, the saved bytes checked
 * against the prediction).  Each graph gets a fresh context, freed with
 * it; with --shared-context one context serves them all (interned
 * expressions then live as long as the process: bounded, since the
 * generator draws from a small palette of sizes).  Every K (default 1000)
 * graphs it prints the graphs done, the resident set and its peak
 * (VmRSS, VmHWM of /proc/self/status) and the failures so far; at the end, the growth of the resident set
 * from the first report to the last.  A leak of even a few bytes per
 * graph shows there: a flat line is the expected result (under
 * AddressSanitizer the quarantine of freed memory adds a bounded rise
 * first).  A benchmark program, not a test: exit status 0, or 1 when a
 * graph fails to draw, partition or validate (naming its seed), 2 for a
 * bad command line.  doc/reliability.md, "Soak". */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symcut/graph.h>
#include <symcut/interp.h>
#include <symcut/partition.h>
#include <symcut/symint.h>

#define MAX_EXCLUDED 32

/* A "Name:   N kB" line of /proc/self/status in KiB (0 when there is
 * none). */
static long status_kib(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = 0;
    size_t n = strlen(name);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, name, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* The op named in "node 'x': op NAME has no derivative formula"
 * (malloc'ed), or NULL. */
static char *failing_op(const char *msg)
{
    const char *p = strstr(msg, ": op ");
    size_t n;
    char *s;
    if (!p || !strstr(msg, "derivative"))
        return NULL;
    p += 5;
    n = strcspn(p, " ");
    if (n == 0 || !(s = malloc(n + 1)))
        return NULL;
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* One graph: draw, joint, partition, validate.  0 when every step
 * passed, 1 otherwise (printed). */
static int soak_one(sc_ctx *ctx, uint64_t seed)
{
    sc_graph_random_options ro;
    sc_graph *fwd = NULL, *joint = NULL;
    sc_partition *p = NULL;
    sc_validate_options vo;
    sc_validate_report rep;
    sc_error err;
    char *excluded[MAX_EXCLUDED];
    size_t nexcl = 0, k;
    int bad = 1;
    const char *step = "draw";

    sc_graph_random_options_init(&ro);
    ro.seed = seed;
    ro.nodes = 2 + (size_t)(seed % 13);
    ro.symbolic = (seed / 13) % 2 == 1;
    for (;;) {
        if (sc_graph_new_random(ctx, &ro, &fwd, &err) != SC_OK)
            goto done;
        if (sc_graph_new_joint(fwd, NULL, &joint, &err) == SC_OK)
            break;
        step = "joint";
        if (err.code != SC_ERR_UNSUPPORTED || nexcl == MAX_EXCLUDED ||
            !(excluded[nexcl] = failing_op(err.message)))
            goto done;
        ro.exclude = (const char *const *)excluded;
        ro.nexclude = ++nexcl;
        sc_graph_free(fwd);
        fwd = NULL;
        step = "draw";
    }
    step = "partition";
    if (sc_partition_run(joint, NULL, &p, &err) != SC_OK)
        goto done;
    step = "validate";
    sc_validate_options_init(&vo);
    vo.seed = seed;
    vo.predicted_saved_bytes = sc_partition_saved_bytes(p);
    if (sc_validate_run(joint, sc_partition_forward(p),
                        sc_partition_backward(p), &vo, &rep, &err) != SC_OK)
        goto done;
    if (!rep.passed) {
        snprintf(err.message, sizeof err.message, "FAIL: %.480s",
                 rep.message);
        goto done;
    }
    bad = 0;
done:
    if (bad)
        fprintf(stderr,
                "soak: seed %" PRIu64 " (symcut random --seed %" PRIu64
                " --nodes %zu%s): %s: %s\n",
                seed, seed, ro.nodes, ro.symbolic ? " --symbolic" : "", step,
                err.message);
    for (k = 0; k < nexcl; k++)
        free(excluded[k]);
    sc_partition_free(p);
    sc_graph_free(joint);
    sc_graph_free(fwd);
    return bad;
}

static int usage(void)
{
    fprintf(stderr, "usage: soak [--graphs N] [--every K] [--seed S] "
                    "[--shared-context]\n");
    return 2;
}

static int parse_count(const char *s, unsigned long long *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return 0;
    *out = strtoull(s, &end, 10);
    return *end == '\0';
}

int main(int argc, char **argv)
{
    unsigned long long graphs = 10000, every = 1000, seed = 0, v;
    bool shared = false;
    sc_ctx *ctx = NULL;
    unsigned long long i, failures = 0;
    long first_rss = -1, last_rss = 0;
    int a;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--shared-context") == 0) {
            shared = true;
        } else if (a + 1 < argc && strcmp(argv[a], "--graphs") == 0 &&
                   parse_count(argv[a + 1], &v) && v > 0) {
            graphs = v;
            a++;
        } else if (a + 1 < argc && strcmp(argv[a], "--every") == 0 &&
                   parse_count(argv[a + 1], &v) && v > 0) {
            every = v;
            a++;
        } else if (a + 1 < argc && strcmp(argv[a], "--seed") == 0 &&
                   parse_count(argv[a + 1], &v)) {
            seed = v;
            a++;
        } else {
            return usage();
        }
    }
    printf("soak: %llu random graphs from seed %llu, %s; drawn, joint, "
           "partitioned (pytorch), validated\n",
           graphs, seed,
           shared ? "one shared context" : "a fresh context each");
    printf("%10s %10s %10s %10s\n", "graphs", "rss_kib", "peak_kib",
           "failures");
    if (shared && !(ctx = sc_ctx_new())) {
        fprintf(stderr, "soak: out of memory\n");
        return 1;
    }
    for (i = 0; i < graphs; i++) {
        sc_ctx *c = shared ? ctx : sc_ctx_new();
        if (!c) {
            fprintf(stderr, "soak: out of memory\n");
            return 1;
        }
        failures += (unsigned long long)soak_one(c, seed + i);
        if (!shared)
            sc_ctx_free(c);
        if ((i + 1) % every == 0 || i + 1 == graphs) {
            last_rss = status_kib("VmRSS");
            if (first_rss < 0)
                first_rss = last_rss;
            printf("%10llu %10ld %10ld %10llu\n", i + 1, last_rss,
                   status_kib("VmHWM"), failures);
            fflush(stdout);
        }
    }
    sc_ctx_free(ctx);
    printf("soak: resident set %ld KiB after the first report, %ld KiB at "
           "the end: %+ld KiB over %llu graphs; %llu failures\n",
           first_rss, last_rss, last_rss - first_rss,
           graphs > every ? graphs - every : 0, failures);
    return failures ? 1 : 0;
}
