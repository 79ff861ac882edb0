/* gen-ops — generate the op tables from graph/ops.yaml.
 *
 *   gen-ops [--check] [--header H] [--source C] [--shapes S]
 *           [--kernels-header KH] [--kernels K] [--autodiff A] OPS.yaml
 *
 * Reads and checks the table; with no error, writes each requested output
 * atomically (to a temporary file next to it, then rename).  On any error
 * it reports every problem as "OPS.yaml:LINE:COL: error: ..." naming the
 * entry, writes nothing, and exits with status 1 (2 for bad usage).
 * --check only checks.  See doc/ops.md.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen, getpid, open */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/gen/gen.h"

/* ---- Arena ---------------------------------------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} arena_block;

static arena_block *arena_head;

static void out_of_memory(void)
{
    fputs("gen-ops: out of memory\n", stderr);
    exit(1);
}

void *gen_alloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (!arena_head || arena_head->size - arena_head->used < size) {
        size_t bsize = size > 65536 ? size : 65536;
        arena_block *b = malloc(sizeof *b + bsize);
        if (!b)
            out_of_memory();
        b->next = arena_head;
        b->used = 0;
        b->size = bsize;
        arena_head = b;
    }
    void *p = arena_head->data + arena_head->used;
    arena_head->used += size;
    memset(p, 0, size);
    return p;
}

void gen_free_all(void)
{
    while (arena_head) {
        arena_block *next = arena_head->next;
        free(arena_head);
        arena_head = next;
    }
}

char *gen_strndup(const char *s, size_t n)
{
    char *p = gen_alloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *gen_strdup(const char *s) { return gen_strndup(s, strlen(s)); }

static char *gen_vprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        out_of_memory();
    char *p = gen_alloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *gen_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = gen_vprintf(fmt, ap);
    va_end(ap);
    return p;
}

void gen_vec_push(gen_vec *v, void *item)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        void **items = gen_alloc(cap * sizeof *items);
        if (v->n)
            memcpy(items, v->items, v->n * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = item;
}

static void str_reserve(gen_str *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *data = gen_alloc(cap);
    if (b->len)
        memcpy(data, b->data, b->len);
    b->data = data;
    b->cap = cap;
}

void gen_str_putc(gen_str *b, char c)
{
    str_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void gen_str_puts(gen_str *b, const char *s)
{
    size_t n = strlen(s);
    str_reserve(b, n);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void gen_str_printf(gen_str *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = gen_vprintf(fmt, ap);
    va_end(ap);
    gen_str_puts(b, p);
}

/* ---- Small helpers -------------------------------------------------------- */

bool gen_is_ident(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
                (*s >= 'A' && *s <= 'Z')))
        return false;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

char *gen_upper(const char *s)
{
    char *p = gen_strdup(s);
    for (char *q = p; *q; q++)
        if (*q >= 'a' && *q <= 'z')
            *q = (char)(*q - 'a' + 'A');
    return p;
}

/* ---- Diagnostics ---------------------------------------------------------- */

const char *gen_input_name = "ops.yaml";
static int error_count;

void gen_error(int line, int col, const char *fmt, ...)
{
    va_list ap;
    if (line > 0 && col > 0)
        fprintf(stderr, "%s:%d:%d: error: ", gen_input_name, line, col);
    else if (line > 0)
        fprintf(stderr, "%s:%d: error: ", gen_input_name, line);
    else
        fprintf(stderr, "%s: error: ", gen_input_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    error_count++;
}

int gen_error_count(void) { return error_count; }

/* ---- Atomic output -------------------------------------------------------- */

typedef struct output {
    const char *path;
    char *tmp;
    bool (*emit)(FILE *, const gen_table *);
} output;

/* Write one output to a fresh temporary file next to its path. */
static bool write_temp(output *o, const gen_table *t)
{
    o->tmp = gen_printf("%s.tmp%ld", o->path, (long)getpid());
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        fprintf(stderr, "gen-ops: cannot create %s: %s\n", o->tmp,
                strerror(errno));
        o->tmp = NULL;
        return false;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(o->tmp);
        o->tmp = NULL;
        return false;
    }
    bool ok = o->emit(f, t);
    ok = !ferror(f) && ok;
    if (fclose(f) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "gen-ops: cannot write %s: %s\n", o->tmp,
                strerror(errno));
        unlink(o->tmp);
        o->tmp = NULL;
    }
    return ok;
}

/* True when the files at a and b have the same bytes. */
static bool same_content(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb)
            same = false;
        else if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Write every output, or none: temporaries first, renames once all exist.
 * An output whose content did not change keeps its file (and time stamp),
 * so that editing a comment in ops.yaml recompiles nothing. */
static bool write_outputs(output *outs, size_t n, const gen_table *t)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!write_temp(&outs[i], t))
            break;
    if (i < n) {
        for (size_t j = 0; j < i; j++)
            unlink(outs[j].tmp);
        return false;
    }
    for (i = 0; i < n; i++) {
        if (same_content(outs[i].tmp, outs[i].path)) {
            unlink(outs[i].tmp);
            continue;
        }
        if (rename(outs[i].tmp, outs[i].path) != 0) {
            fprintf(stderr, "gen-ops: cannot rename %s to %s: %s\n",
                    outs[i].tmp, outs[i].path, strerror(errno));
            for (size_t j = i; j < n; j++)
                unlink(outs[j].tmp);
            return false;
        }
    }
    return true;
}

/* ---- Main ------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("usage: gen-ops [--check] [--header FILE] [--source FILE] "
          "[--shapes FILE] [--kernels-header FILE] [--kernels FILE] "
          "[--autodiff FILE] OPS.yaml\n"
          "Check graph/ops.yaml and write the C op tables (see doc/ops.md).\n",
          f);
}

int main(int argc, char **argv)
{
    const char *input = NULL, *header = NULL, *source = NULL,
               *shapes = NULL, *kernels_header = NULL, *kernels = NULL,
               *autodiff = NULL;
    bool check_only = false;
    int status = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--check") == 0)
            check_only = true;
        else if (strcmp(a, "--header") == 0)
            slot = &header;
        else if (strcmp(a, "--source") == 0)
            slot = &source;
        else if (strcmp(a, "--shapes") == 0)
            slot = &shapes;
        else if (strcmp(a, "--kernels-header") == 0)
            slot = &kernels_header;
        else if (strcmp(a, "--kernels") == 0)
            slot = &kernels;
        else if (strcmp(a, "--autodiff") == 0)
            slot = &autodiff;
        else if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "gen-ops: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (input) {
            fprintf(stderr, "gen-ops: more than one input file\n");
            usage(stderr);
            return 2;
        } else
            input = a;
        if (slot) {
            if (++i >= argc) {
                fprintf(stderr, "gen-ops: '%s' needs a file name\n", a);
                return 2;
            }
            *slot = argv[i];
        }
    }
    if (!input) {
        usage(stderr);
        return 2;
    }
    if (!check_only && !header && !source && !shapes && !kernels_header &&
        !kernels && !autodiff) {
        fprintf(stderr, "gen-ops: nothing to write (give --header, "
                        "--source, --shapes, --kernels-header, --kernels, "
                        "--autodiff or --check)\n");
        return 2;
    }

    gen_input_name = input;
    gen_table table;
    memset(&table, 0, sizeof table);
    if (!gen_table_load(input, &table)) {
        fprintf(stderr, "gen-ops: %d error%s in %s; nothing written\n",
                gen_error_count(), gen_error_count() == 1 ? "" : "s", input);
        status = 1;
    } else if (!check_only) {
        output outs[6];
        size_t n = 0;
        if (header)
            outs[n++] = (output){header, NULL, gen_emit_header};
        if (source)
            outs[n++] = (output){source, NULL, gen_emit_source};
        if (shapes)
            outs[n++] = (output){shapes, NULL, gen_emit_shapes};
        if (kernels_header)
            outs[n++] = (output){kernels_header, NULL,
                                 gen_emit_kernels_header};
        if (kernels)
            outs[n++] = (output){kernels, NULL, gen_emit_kernels};
        if (autodiff)
            outs[n++] = (output){autodiff, NULL, gen_emit_autodiff};
        if (!write_outputs(outs, n, &table))
            status = 1;
    }
    gen_free_all();
    return status;
}
