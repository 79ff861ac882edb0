/* symcut — symint benchmark.
 *
 *   bench/bench_symint [FILE [SECONDS]]
 *
 * Reads expressions, one a line (blank lines and lines starting with '#'
 * are skipped; default bench/exprs.txt), and measures, for each phase,
 * expressions per second on one core:
 *
 *   parse+canonicalize      sc_expr_parse, in a FRESH context per round
 *                           (every node is created and interned anew) and
 *                           in a WARM context (the nodes already exist:
 *                           interning makes a repeated parse a lookup);
 *   print                   sc_expr_to_str (and free);
 *   parse+canon+print       both together, fresh and warm;
 *   simplify                sc_expr_simplify with bounds on every symbol;
 *   eval                    sc_expr_eval with a binding (the GMP path) and
 *                           sc_expr_eval_si;
 *   compiled eval           sc_prog_eval of one program holding every
 *                           expression, counted per expression.
 *
 * Each phase repeats whole rounds over the file until SECONDS (default
 * 0.7) have passed, timed with clock_gettime(CLOCK_MONOTONIC); the CPU
 * time of the thread (CLOCK_THREAD_CPUTIME_ID) is reported beside it, as
 * it is the per-core figure when other processes share the machine.  The
 * targets are printed beside the figures they apply to, judged
 * on CPU time: parse+canonicalize+print >= 1,000,000/s (on the fresh
 * context, the honest figure) and evaluation >= 20,000,000/s for
 * expressions that fit in 64 bits (on compiled eval).
 *
 * The fresh-context phases create and free a context every round (a few
 * hundred kilobytes).  With glibc's default trim threshold, a free that
 * leaves that much at the top of the heap gives it back to the kernel
 * (brk), and the next round takes it back page by page: on a virtual
 * machine the TLB flushes and page faults of that churn can cost more
 * than the parsing itself, and whether they happen depends on the exact
 * heap layout.  So the benchmark raises the trim threshold (mallopt) to
 * measure symcut rather than the kernel; SYMCUT_BENCH_MALLOC_DEFAULTS=1
 * keeps glibc's defaults.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gmp.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <symcut/symint.h>

#define NSYMS 6

static const char *const sym_names[NSYMS] = {"s0", "s1", "s2",
                                             "s3", "s4", "s5"};
/* The binding every evaluation uses: typical sizes. */
static const int64_t sym_values[NSYMS] = {8, 512, 64, 3, 224, 16};

static double phase_seconds = 0.7;

/* Keeps results alive so the compiler cannot drop the work. */
static volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: the figure that does not depend on how many
 * other processes share the machine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct lines {
    char **text;
    size_t n, cap;
} lines;

static int read_lines(const char *path, lines *out)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    if (!f)
        return -1;
    out->text = NULL;
    out->n = out->cap = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        char *p = line;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        if (out->n == out->cap) {
            size_t ncap = out->cap ? 2 * out->cap : 256;
            char **t = realloc(out->text, ncap * sizeof *t);
            if (!t)
                goto fail;
            out->text = t;
            out->cap = ncap;
        }
        out->text[out->n] = strdup(p);
        if (!out->text[out->n])
            goto fail;
        out->n++;
    }
    free(line);
    fclose(f);
    return 0;
fail:
    free(line);
    fclose(f);
    return -1;
}

static sc_ctx *new_ctx(void)
{
    sc_ctx *ctx = sc_ctx_new();
    size_t i;
    if (!ctx)
        return NULL;
    for (i = 0; i < NSYMS; i++)
        if (!sc_expr_symbol(ctx, sym_names[i])) {
            sc_ctx_free(ctx);
            return NULL;
        }
    return ctx;
}

/* Parse every line into exprs (NULL: discard); false on the first error,
 * which is printed. */
static bool parse_all(sc_ctx *ctx, const lines *in, sc_expr **exprs,
                      bool print_too)
{
    size_t i;
    for (i = 0; i < in->n; i++) {
        sc_error err;
        sc_expr *e = NULL;
        if (sc_expr_parse(ctx, in->text[i], NULL, (int)i + 1, &e, &err) !=
            SC_OK) {
            fprintf(stderr, "bench_symint: line %zu: %s: %s\n", i + 1,
                    in->text[i], err.message);
            return false;
        }
        if (exprs)
            exprs[i] = e;
        if (print_too) {
            char *s = sc_expr_to_str(ctx, e);
            if (!s)
                return false;
            sink += (unsigned char)s[0];
            free(s);
        }
        sink += (uintptr_t)e;
    }
    return true;
}

typedef struct result {
    const char *name;
    double per_second;     /* wall clock */
    double per_cpu_second; /* thread CPU time */
    const char *target; /* NULL: none */
    double target_value;
    const char *note;
} result;

static result results[16];
static size_t nresults;

static double last_cpu_seconds;

static void record(const char *name, double ops, double seconds,
                   const char *target, double target_value, const char *note)
{
    result *r = &results[nresults++];
    r->name = name;
    r->per_second = ops / seconds;
    r->per_cpu_second = ops / last_cpu_seconds;
    r->target = target;
    r->target_value = target_value;
    r->note = note;
}

/* Run `body` (one round over the file) repeatedly for phase_seconds of
 * wall-clock time; the rounds, the wall time, and (in last_cpu_seconds)
 * the CPU time they took. */
#define TIME_ROUNDS(rounds_out, seconds_out, body)                          \
    do {                                                                     \
        double t0_ = now(), c0_ = cpu_now(), t_;                             \
        long r_ = 0;                                                         \
        do {                                                                 \
            body;                                                            \
            r_++;                                                            \
            t_ = now() - t0_;                                                \
        } while (t_ < phase_seconds);                                        \
        last_cpu_seconds = cpu_now() - c0_;                                  \
        (rounds_out) = r_;                                                   \
        (seconds_out) = t_;                                                  \
    } while (0)

static const char *group(double v, char *buf, size_t size)
{
    char raw[64], *p;
    size_t len, i, out = 0;
    snprintf(raw, sizeof raw, "%.0f", v);
    len = strlen(raw);
    p = raw;
    for (i = 0; i < len && out + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[out++] = ',';
        buf[out++] = p[i];
    }
    buf[out] = '\0';
    return buf;
}

typedef struct bench {
    const lines *in;
    size_t n;
    sc_ctx *ctx;
    sc_expr **exprs, **simple;
    sc_bounds *bounds;
    sc_symmap *binding;
    sc_prog *prog; /* NULL when it could not be built */
    int64_t *inputs, *outputs;
} bench;

/* Time every phase, appending to results[]; false on an error. */
static bool run_phases(bench *b)
{
    const lines *inp = b->in;
    size_t i, n = b->n;
    long rounds;
    double secs;
    sc_error err;
    mpz_t v;
    bool ok = false;

    mpz_init(v);
    /* ---- parse + canonicalize ---- */
    TIME_ROUNDS(rounds, secs, {
        sc_ctx *fresh = new_ctx();
        if (!fresh || !parse_all(fresh, inp, NULL, false))
            goto done;
        sc_ctx_free(fresh);
    });
    record("parse+canonicalize, fresh context", (double)rounds * n, secs,
           NULL, 0, "includes sc_ctx_new/free per round");
    TIME_ROUNDS(rounds, secs, {
        if (!parse_all(b->ctx, inp, NULL, false))
            goto done;
    });
    record("parse+canonicalize, warm context", (double)rounds * n, secs,
           NULL, 0, "every node already interned");

    /* ---- print ---- */
    TIME_ROUNDS(rounds, secs, {
        for (i = 0; i < n; i++) {
            char *s = sc_expr_to_str(b->ctx, b->exprs[i]);
            if (!s)
                goto done;
            sink += (unsigned char)s[0];
            free(s);
        }
    });
    record("print (sc_expr_to_str)", (double)rounds * n, secs, NULL, 0,
           NULL);

    /* ---- parse + canonicalize + print ---- */
    TIME_ROUNDS(rounds, secs, {
        sc_ctx *fresh = new_ctx();
        if (!fresh || !parse_all(fresh, inp, NULL, true))
            goto done;
        sc_ctx_free(fresh);
    });
    record("parse+canonicalize+print, fresh ctx", (double)rounds * n, secs,
           ">= 1,000,000", 1e6, "the target's figure");
    TIME_ROUNDS(rounds, secs, {
        if (!parse_all(b->ctx, inp, NULL, true))
            goto done;
    });
    record("parse+canonicalize+print, warm ctx", (double)rounds * n, secs,
           NULL, 0, NULL);

    /* ---- simplify ---- */
    TIME_ROUNDS(rounds, secs, {
        for (i = 0; i < n; i++) {
            b->simple[i] = sc_expr_simplify(b->ctx, b->exprs[i], b->bounds);
            if (!b->simple[i])
                goto done;
        }
    });
    record("simplify with bounds", (double)rounds * n, secs, NULL, 0, NULL);

    /* ---- eval ---- */
    TIME_ROUNDS(rounds, secs, {
        for (i = 0; i < n; i++) {
            if (sc_expr_eval(b->ctx, b->exprs[i], b->binding, v, &err) !=
                SC_OK)
                goto done;
            sink += mpz_getlimbn(v, 0);
        }
    });
    record("eval (sc_expr_eval, GMP)", (double)rounds * n, secs, NULL, 0,
           NULL);
    TIME_ROUNDS(rounds, secs, {
        for (i = 0; i < n; i++) {
            int64_t x;
            if (sc_expr_eval_si(b->ctx, b->exprs[i], b->binding, &x, &err) !=
                SC_OK)
                goto done;
            sink += (uint64_t)x;
        }
    });
    record("eval (sc_expr_eval_si)", (double)rounds * n, secs, NULL, 0,
           NULL);

    /* ---- a product too large to expand (the fuzzer's slow inputs) ---- */
    {
        static const char *const too_large[] = {
            "((a + 1)*(b + 1)*(c + 1)*(d + 1)*(e + 1)*(f + 1)*(g + 1)*"
            "(h + 1)*(i + 1))**2",
            "((a + 1)*(b + 1)*(c + 1)*(d + 1)*(e + 1)*(f + 2)*(g + 1)*"
            "(h + 1)*(i + 1))**2",
        };
        TIME_ROUNDS(rounds, secs, {
            for (i = 0; i < sizeof too_large / sizeof too_large[0]; i++) {
                sc_ctx *fresh = new_ctx();
                sc_expr *e = NULL;
                if (!fresh)
                    goto done;
                if (sc_expr_parse(fresh, too_large[i], "bench", 1, &e,
                                  &err) != SC_ERR_LIMIT) {
                    sc_ctx_free(fresh);
                    goto done;
                }
                sc_ctx_free(fresh);
            }
        });
        record("product too large to expand (fails)",
               (double)rounds * (double)(sizeof too_large /
                                         sizeof too_large[0]),
               secs, NULL, 0, "the square of a product of nine sums");
    }

    if (b->prog) {
        TIME_ROUNDS(rounds, secs, {
            if (sc_prog_eval(b->prog, b->inputs, b->outputs, &err) != SC_OK)
                goto done;
            sink += (uint64_t)b->outputs[0];
        });
        record("compiled eval (sc_prog_eval)", (double)rounds * n, secs,
               ">= 20,000,000", 2e7, "per expression, one program");
    }
    ok = true;
done:
    if (!ok)
        fprintf(stderr, "bench_symint: a phase failed: %s\n", err.message);
    mpz_clear(v);
    return ok;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "bench/exprs.txt";
    lines in;
    sc_ctx *ctx = NULL;
    sc_expr **exprs = NULL, **simple = NULL;
    sc_bounds *bounds = NULL;
    sc_symmap *binding = NULL;
    sc_prog *prog = NULL;
    int64_t *inputs = NULL, *outputs = NULL;
    size_t i, n, nodes = 0, min_nodes = SIZE_MAX, max_nodes = 0;
    size_t n_eval_fit = 0;
    bool loaded = false;
    sc_error err;
    int status = 1;

#ifdef __GLIBC__
    if (!getenv("SYMCUT_BENCH_MALLOC_DEFAULTS"))
        mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
    if (argc > 2)
        phase_seconds = atof(argv[2]);
    if (phase_seconds <= 0)
        phase_seconds = 0.7;
    if (read_lines(path, &in) != 0 || in.n == 0) {
        fprintf(stderr,
                "bench_symint: cannot read expressions from %s\n"
                "usage: bench_symint [FILE [SECONDS]] (default "
                "bench/exprs.txt, 0.7 s per phase)\n",
                path);
        return 2;
    }
    n = in.n;
    exprs = calloc(n, sizeof *exprs);
    simple = calloc(n, sizeof *simple);
    inputs = calloc(NSYMS, sizeof *inputs);
    outputs = calloc(n, sizeof *outputs);
    ctx = new_ctx();
    if (!exprs || !simple || !inputs || !outputs || !ctx) {
        fprintf(stderr, "bench_symint: out of memory\n");
        goto done;
    }
    if (!parse_all(ctx, &in, exprs, false))
        goto done;
    for (i = 0; i < n; i++) {
        size_t sz = sc_expr_size(exprs[i]);
        nodes += sz;
        if (sz < min_nodes)
            min_nodes = sz;
        if (sz > max_nodes)
            max_nodes = sz;
    }

    /* bounds and binding */
    bounds = sc_bounds_new(ctx);
    binding = sc_symmap_new(ctx);
    if (!bounds || !binding)
        goto done;
    for (i = 0; i < NSYMS; i++) {
        sc_expr *s = sc_expr_symbol(ctx, sym_names[i]);
        if (sc_bounds_set_si(bounds, s, false, 2, false, 1 << 20, &err) !=
                SC_OK ||
            sc_symmap_set_si(binding, s, sym_values[i], &err) != SC_OK) {
            fprintf(stderr, "bench_symint: %s\n", err.message);
            goto done;
        }
    }
    for (i = 0; i < n; i++) {
        int64_t x;
        if (sc_expr_eval_si(ctx, exprs[i], binding, &x, &err) == SC_OK)
            n_eval_fit++;
        else
            fprintf(stderr, "bench_symint: line %zu does not evaluate in "
                    "int64 at the binding: %s\n", i + 1, err.message);
    }

    printf("symint benchmark: %zu expressions from %s\n", n, path);
    printf("  expression size (sc_expr_size): mean %.1f, min %zu, max %zu "
           "nodes\n", (double)nodes / (double)n, min_nodes, max_nodes);
    printf("  symbols s0..s5 bound to 8, 512, 64, 3, 224, 16; bounds "
           "[2, 1048576]; %.2f s per phase,\n  after an untimed warm-up "
           "pass over every phase\n\n", phase_seconds);

    /* ---- the compiled program (checked against sc_expr_eval) ---- */
    if (sc_prog_new(ctx, n, exprs, &prog, &err) != SC_OK) {
        fprintf(stderr, "bench_symint: sc_prog_new: %s\n", err.message);
        prog = NULL;
    } else {
        size_t nin = sc_prog_input_count(prog), bad = 0;
        for (i = 0; i < nin; i++)
            inputs[i] = sym_values[sc_expr_symbol_index(sc_prog_input(prog,
                                                                      i))];
        if (sc_prog_eval(prog, inputs, outputs, &err) != SC_OK) {
            fprintf(stderr, "bench_symint: sc_prog_eval: %s\n", err.message);
            sc_prog_free(prog);
            prog = NULL;
        } else {
            for (i = 0; i < n; i++) {
                int64_t x;
                if (sc_expr_eval_si(ctx, exprs[i], binding, &x, &err) ==
                        SC_OK &&
                    x != outputs[i])
                    bad++;
            }
            if (bad)
                fprintf(stderr, "bench_symint: WARNING: sc_prog_eval "
                        "disagrees with sc_expr_eval on %zu expressions\n",
                        bad);
        }
    }

    /* A short untimed pass over every phase first: the allocator's state
     * (heap trimming, mmap thresholds) settles, so that no phase's figure
     * depends on the order the phases run in. */
    {
        bench b;
        double full = phase_seconds;
        b.in = &in;
        b.n = n;
        b.ctx = ctx;
        b.exprs = exprs;
        b.simple = simple;
        b.bounds = bounds;
        b.binding = binding;
        b.prog = prog;
        b.inputs = inputs;
        b.outputs = outputs;
        phase_seconds = 0.05;
        if (!run_phases(&b))
            goto done;
        nresults = 0;
        phase_seconds = full;
        if (!run_phases(&b))
            goto done;
    }

    printf("%-37s %13s %13s %8s  %-13s %s\n", "phase", "expr/s wall",
           "expr/s CPU", "ns CPU", "target (CPU)", "");
    for (i = 0; i < nresults; i++) {
        char wall[64], cpu[64];
        const result *r = &results[i];
        const char *verdict = "";
        if (r->target)
            verdict = r->per_cpu_second >= r->target_value ? "MET" : "MISSED";
        printf("%-37s %13s %13s %8.1f  %-13s %-6s %s\n", r->name,
               group(r->per_second, wall, sizeof wall),
               group(r->per_cpu_second, cpu, sizeof cpu),
               1e9 / r->per_cpu_second, r->target ? r->target : "", verdict,
               r->note ? r->note : "");
        if (r->per_cpu_second > 1.15 * r->per_second)
            loaded = true;
    }
    if (loaded)
        printf("\nwarning: this process did not get a whole core (the machine "
               "is busy): the wall-clock\nfigures are low; the CPU-time "
               "figures are the per-core rates.\n");
    if (n_eval_fit < n)
        printf("\nnote: %zu of %zu expressions do not evaluate in int64 at "
               "the binding\n", n - n_eval_fit, n);
    status = 0;
done:
    if (status != 0 && nresults == 0)
        fprintf(stderr, "bench_symint: failed\n");
    sc_prog_free(prog);
    sc_bounds_free(bounds);
    sc_symmap_free(binding);
    sc_ctx_free(ctx);
    free(exprs);
    free(simple);
    free(inputs);
    free(outputs);
    for (i = 0; i < in.n; i++)
        free(in.text[i]);
    free(in.text);
    return status;
}
