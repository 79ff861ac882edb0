/* gen-ops — the op-table generator: shared declarations.
 *
 * Included by graph/gen/ only.  gen-ops is a build-time program, not part
 * of the library: it reads graph/ops.yaml, checks every entry, and writes
 * the C tables described by graph/ops.h.  It may print and exit.  Everything it allocates comes from
 * one arena released before it returns (so sanitizer builds stay clean).
 */
#ifndef SYMCUT_GRAPH_GEN_GEN_H
#define SYMCUT_GRAPH_GEN_GEN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "graph/ops-vocab.h"

#if defined(__GNUC__)
#define GEN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GEN_PRINTF(f, a)
#endif

/* ---- Memory: one arena for the whole run -------------------------------- */
void *gen_alloc(size_t size);          /* zeroed; exits on exhaustion */
char *gen_strndup(const char *s, size_t n);
char *gen_strdup(const char *s);
char *gen_printf(const char *fmt, ...) GEN_PRINTF(1, 2);
void gen_free_all(void);

/* A growable array of pointers. */
typedef struct gen_vec {
    void **items;
    size_t n, cap;
} gen_vec;
void gen_vec_push(gen_vec *v, void *item);

/* A growable string (arena-backed). */
typedef struct gen_str {
    char *data;
    size_t len, cap;
} gen_str;
void gen_str_putc(gen_str *b, char c);
void gen_str_puts(gen_str *b, const char *s);
void gen_str_printf(gen_str *b, const char *fmt, ...) GEN_PRINTF(2, 3);

/* ---- Diagnostics --------------------------------------------------------
 * "FILE:LINE:COL: error: MESSAGE" on stderr; counts errors.  line and col
 * are 1-based; 0 omits them. */
extern const char *gen_input_name;
void gen_error(int line, int col, const char *fmt, ...) GEN_PRINTF(3, 4);
int gen_error_count(void);

/* ---- The schema model (mirrors graph/ops.h) -----------------------------
 * The vocabulary (T_<NAME>, D_<NAME>, C_<NAME>) is expanded from the lists
 * of graph/ops-vocab.h, as graph/ops.h expands SC_TYPE_<NAME>, SC_DEF_<NAME>
 * and SC_CLASS_<NAME>. */
#define GEN_TYPE_ENUM(NAME, spelling) T_##NAME,
enum { SC__OP_TYPE_BASES(GEN_TYPE_ENUM) T_COUNT };
#undef GEN_TYPE_ENUM
extern const char *const gen_type_names[T_COUNT];  /* schema spelling */
extern const char *const gen_type_enums[T_COUNT];  /* SC_TYPE_... */

typedef struct gen_type {
    int base;
    bool is_list, elem_optional, optional;
    int list_size;
} gen_type;

typedef struct gen_alias {
    char *set;                  /* NULL: none */
    bool is_write, to_wildcard;
} gen_alias;

#define GEN_DEFAULT_ENUM(NAME) D_##NAME,
enum { SC__OP_DEFAULT_KINDS(GEN_DEFAULT_ENUM) D_COUNT };
#undef GEN_DEFAULT_ENUM
extern const char *const gen_default_enums[D_COUNT]; /* SC_DEF_... */

typedef struct gen_default {
    int kind;
    bool expanded;
    int64_t i;
    double f;
    char *s;
    size_t n;
    int64_t *ints;
    double *floats;
    char *text;
} gen_default;

typedef struct gen_arg {
    char *name;
    gen_type type;
    gen_alias alias;
    bool kwarg_only, mutated;
    gen_default def;
} gen_arg;

typedef struct gen_ret {
    char *name;
    gen_type type;
    gen_alias alias;
} gen_ret;

typedef struct gen_schema {
    char *name, *overload;      /* overload "" when absent */
    gen_arg *args;
    size_t nargs, npositional;
    gen_ret *rets;
    size_t nrets;
    bool returns_tuple;
} gen_schema;

/* Parse `text` as a schema.  On failure returns false with *err_col (the
 * 1-based column in text) and *err_msg set; the partially filled schema
 * must not be used.  Checks syntax and the rules local to one schema:
 * unique argument names, defaults that fit their types, no required
 * positional argument after a defaulted one, return alias sets that name an
 * argument's set. */
bool gen_schema_parse(const char *text, gen_schema *out, int *err_col,
                      char **err_msg);

/* The canonical spelling of a schema (PyTorch's). */
char *gen_schema_format(const gen_schema *s);

/* ---- The table ---------------------------------------------------------- */
#define GEN_CLASS_ENUM(NAME, spelling) C_##NAME,
enum { SC__OP_CLASSES(GEN_CLASS_ENUM) C_COUNT };
#undef GEN_CLASS_ENUM
extern const char *const gen_class_names[C_COUNT];  /* ops.yaml spelling */
extern const char *const gen_class_enums[C_COUNT];  /* SC_CLASS_... */

typedef struct gen_op {
    int line;                   /* of the entry */
    char *func;                 /* schema text */
    gen_schema schema;
    char *dotted;               /* "mm.default" */
    char *qualified;            /* "aten::mm" */
    char *enum_name;            /* "SC_OP_MM" */
    char *ns;                   /* "aten" / "python" */
    int cls;
    char *shape;                /* rule name */
    char *shape_doc;            /* NULL, or the rule's doc when the entry
                                   declares it (`shape_doc:`) */
    int shape_doc_line, shape_doc_col;
    char *kernel;               /* NULL: none */
    char *reason;
    char *flops;                /* NULL: none */
    bool functorch_random;
    bool is_view, is_inplace;
    char *python_op, *python_target;
    size_t *mutates;            /* argument indices */
    size_t nmutates;
    char *label;                /* "op 'mm.default' (line 12)", for messages */
    int shape_line, flops_line, python_line;
    /* Derivatives (graph/gen/deriv.c; doc/autodiff.md). */
    int deriv_kind;             /* GEN_DERIV_NONE / _NOT_DIFF / _FORMULAS */
    gen_vec derivs;             /* gen_deriv *, in file order */
    bool *out_diff;             /* nrets entries: return i differentiable */
    int out_diff_line;          /* 0: not given (all differentiable) */
    int deriv_line;
} gen_op;

enum { GEN_DERIV_NONE, GEN_DERIV_NOT_DIFF, GEN_DERIV_FORMULAS };

struct gen_expr;

/* One key of a `derivatives:` mapping. */
typedef struct gen_deriv {
    char *key;                  /* "self" or "input, weight, bias" */
    char **inputs;              /* the key's argument names */
    int *input_idx;             /* their schema indices (after checking) */
    size_t ninputs;
    char *text;                 /* the formula, or "non_differentiable" */
    bool non_diff;
    int key_line, key_col;
    int line, col;              /* of the formula's first character in the
                                   file (col 0: unknown, e.g. folded) */
    struct gen_expr *expr;      /* parsed and resolved formula */
    unsigned ntemps;            /* temporaries its C code needs */
    unsigned grads_read;        /* bit i: it reads grads[i] */
    bool grads_list;            /* it reads `grads` */
} gen_deriv;

typedef struct gen_registry_entry {
    char *name;
    char *doc;
    int line;
    bool used;
} gen_registry_entry;

/* One argument name of a kernel: the ops naming the kernel give the
 * argument called `name` the schema index `index` (the same in each). */
typedef struct gen_kernel_arg {
    char *name;
    size_t index;
    char *constant;             /* "SC_KARG_<KERNEL>_<NAME>" */
} gen_kernel_arg;

/* A kernel name and what its named argument access is built from. */
typedef struct gen_kernel {
    char *name;
    gen_vec ops;                /* gen_op *, the ops naming it, file order */
    gen_vec args;               /* gen_kernel_arg *, first-use order */
} gen_kernel;

typedef struct gen_table {
    gen_vec ops;                /* gen_op *, in file order */
    gen_vec shape_rules;        /* gen_registry_entry *, in file order */
    gen_vec flops;              /* gen_registry_entry *, in file order */
    gen_vec kernels;            /* char *, unique, first-use order */
    gen_vec kernel_info;        /* gen_kernel *, parallel to kernels */
} gen_table;

/* Load and check the table in `path`.  Returns false (after reporting every
 * problem found through gen_error) if anything is wrong. */
bool gen_table_load(const char *path, gen_table *t);

/* Write one output to an open stream (graph/gen/emit.c, graph/gen/deriv.c):
 * graph/ops-gen.h, graph/ops-gen.c, graph/ops-shapes-gen.c,
 * kernels/kernels-gen.h, kernels/kernels-gen.c, graph/ops-autodiff-gen.c.
 * Each returns false on a write error. */
bool gen_emit_header(FILE *f, const gen_table *t);
bool gen_emit_source(FILE *f, const gen_table *t);
bool gen_emit_shapes(FILE *f, const gen_table *t);
bool gen_emit_kernels_header(FILE *f, const gen_table *t);
bool gen_emit_kernels(FILE *f, const gen_table *t);
bool gen_emit_autodiff(FILE *f, const gen_table *t);

/* Parse and resolve every derivative formula against the whole table
 * (graph/gen/deriv.c); reports problems through gen_error. */
void gen_deriv_check(gen_table *t);

/* Helpers shared by the parts. */
bool gen_is_ident(const char *s);
char *gen_upper(const char *s);

#endif /* SYMCUT_GRAPH_GEN_GEN_H */
