/* gen-ops — write the generated C: graph/ops-gen.h (enums and the shape
 * rules' prototypes), graph/ops-gen.c (the tables declared in graph/ops.h),
 * graph/ops-shapes-gen.c (the function-pointer table of the shape rules),
 * kernels/kernels-gen.h (the kernels' prototypes and named argument
 * constants) and kernels/kernels-gen.c (the kernel dispatch table).  The
 * output depends only on the table's content, never on paths, time or the
 * machine, so every build writes the same bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gen/gen.h"

#define BANNER_TAIL "generated from graph/ops.yaml by graph/gen/gen-ops — do not edit."

/* ---- Text helpers ---------------------------------------------------------- */

/* A C string literal for s. */
static const char *cstr(const char *s)
{
    if (!s)
        return "NULL";
    gen_str b = {0};
    gen_str_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            gen_str_printf(&b, "\\%c", *p);
        else if (*p == '\n')
            gen_str_puts(&b, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            gen_str_printf(&b, "\\%03o", *p);
        else if (*p == '?' && p[1] == '?')
            gen_str_puts(&b, "?\"\""); /* no trigraphs */
        else
            gen_str_putc(&b, (char)*p);
    }
    gen_str_putc(&b, '"');
    return b.data;
}

/* s made safe inside a comment. */
static const char *ccomment(const char *s)
{
    gen_str b = {0};
    for (const char *p = s; *p; p++) {
        if (p[0] == '*' && p[1] == '/')
            gen_str_puts(&b, "* ");
        else if (*p == '\n')
            gen_str_putc(&b, ' ');
        else
            gen_str_putc(&b, *p);
    }
    return b.data ? b.data : "";
}

static const char *cbool(bool b) { return b ? "true" : "false"; }

static const char *cdouble(double f)
{
    if (isnan(f))
        return "NAN";
    if (isinf(f))
        return f > 0 ? "HUGE_VAL" : "(-HUGE_VAL)";
    char *s = gen_printf("%.17g", f);
    /* keep it a floating literal */
    if (!strpbrk(s, ".eEn"))
        s = gen_printf("%s.0", s);
    return s;
}

static const char *enum_suffix(const gen_op *op)
{
    return op->enum_name + strlen("SC_OP_");
}

static size_t max_args(const gen_table *t, bool rets)
{
    size_t m = 1;
    for (size_t i = 0; i < t->ops.n; i++) {
        const gen_op *op = t->ops.items[i];
        size_t n = rets ? op->schema.nrets : op->schema.nargs;
        if (n > m)
            m = n;
    }
    return m;
}

static void banner(FILE *f, const char *file, const char *what)
{
    fprintf(f, "/* %s — " BANNER_TAIL "\n *\n * %s\n */\n", file, what);
}

/* ---- graph/ops-gen.h -------------------------------------------------------- */

bool gen_emit_header(FILE *f, const gen_table *t)
{
    banner(f, "graph/ops-gen.h",
           "The enums of the op table.  Include \"graph/ops.h\", which "
           "includes this\n * file and describes the tables.");
    fputs("#ifndef SYMCUT_GRAPH_OPS_GEN_H\n"
          "#define SYMCUT_GRAPH_OPS_GEN_H\n\n"
          "#ifndef SYMCUT_GRAPH_OPS_H\n"
          "#error \"include graph/ops.h, not graph/ops-gen.h\"\n"
          "#endif\n\n",
          f);

    fputs("/* X(NAME, DOTTED) for every op in table order; the enum constant "
          "is SC_OP_##NAME. */\n#define SC_OPS_MAP(X) \\\n",
          f);
    for (size_t i = 0; i < t->ops.n; i++) {
        const gen_op *op = t->ops.items[i];
        fprintf(f, "    X(%s, %s)%s\n", enum_suffix(op), cstr(op->dotted),
                i + 1 < t->ops.n ? " \\" : "");
    }

    fputs("\n/* The ops, in ops.yaml order. */\ntypedef enum sc__op {\n"
          "    SC_OP_INVALID_ = -1,\n",
          f);
    for (size_t i = 0; i < t->ops.n; i++) {
        const gen_op *op = t->ops.items[i];
        fprintf(f, "    %s, /* %s */\n", op->enum_name,
                ccomment(op->qualified));
    }
    fprintf(f, "    SC_OP_COUNT_\n} sc__op;\n\n");
    fprintf(f, "/* The most arguments and returns of any op. */\n"
               "#define SC_OP_MAX_ARGS_ %zu\n#define SC_OP_MAX_RETS_ %zu\n\n",
            max_args(t, false), max_args(t, true));

    fputs("/* Shape rules: sc__shape_<rule> computes an op's output sizes, "
          "strides and dtype. */\ntypedef enum sc__shape_rule {\n",
          f);
    for (size_t i = 0; i < t->shape_rules.n; i++) {
        const gen_registry_entry *e = t->shape_rules.items[i];
        fprintf(f, "    SC_SHAPE_%s, /* %s */\n", gen_upper(e->name),
                ccomment(e->doc));
    }
    fputs("    SC_SHAPE_RULE_COUNT_\n} sc__shape_rule;\n\n", f);

    fputs("/* Kernels: sc__kernel_<name> executes an op on CPU tensors. */\n"
          "typedef enum sc__kernel_id {\n    SC_KERNEL_NONE_ = -1,\n",
          f);
    for (size_t i = 0; i < t->kernels.n; i++)
        fprintf(f, "    SC_KERNEL_%s,\n",
                gen_upper((const char *)t->kernels.items[i]));
    fputs("    SC_KERNEL_COUNT_\n} sc__kernel_id;\n\n", f);

    fputs("/* FLOP-count formulas. */\ntypedef enum sc__flops_formula {\n"
          "    SC_FLOPS_NONE_ = -1,\n",
          f);
    for (size_t i = 0; i < t->flops.n; i++) {
        const gen_registry_entry *e = t->flops.items[i];
        fprintf(f, "    SC_FLOPS_%s, /* %s */\n", gen_upper(e->name),
                ccomment(e->doc));
    }
    fputs("    SC_FLOPS_COUNT_\n} sc__flops_formula;\n\n", f);

    fputs("/* The shape rules, one function per rule (graph/).  Defined by "
          "hand; referenced only\n * by graph/ops-shapes-gen.c. */\n",
          f);
    for (size_t i = 0; i < t->shape_rules.n; i++) {
        const gen_registry_entry *e = t->shape_rules.items[i];
        fprintf(f, "sc_status sc__shape_%s(struct sc__shape_call *call);\n",
                e->name);
    }
    fputs("\n#endif /* SYMCUT_GRAPH_OPS_GEN_H */\n", f);
    return !ferror(f);
}

/* ---- graph/ops-gen.c -------------------------------------------------------- */

static void emit_type(FILE *f, const gen_type *ty)
{
    fprintf(f, "{.base = %s", gen_type_enums[ty->base]);
    if (ty->is_list)
        fputs(", .is_list = true", f);
    if (ty->elem_optional)
        fputs(", .elem_optional = true", f);
    if (ty->optional)
        fputs(", .optional = true", f);
    if (ty->list_size)
        fprintf(f, ", .list_size = %d", ty->list_size);
    fputc('}', f);
}

static void emit_alias(FILE *f, const gen_alias *a)
{
    if (!a->set)
        return;
    fprintf(f, ",\n     .alias = {.set = %s%s%s}", cstr(a->set),
            a->is_write ? ", .is_write = true" : "",
            a->to_wildcard ? ", .to_wildcard = true" : "");
}

/* The static arrays a list default needs, named op<i>_arg<j>_*. */
static void emit_default_arrays(FILE *f, size_t i, size_t j,
                                const gen_default *d)
{
    if (d->n == 0)
        return;
    if (d->kind == D_INT_LIST || d->kind == D_BOOL_LIST) {
        fprintf(f, "static const int64_t op%zu_arg%zu_ints[] = {", i, j);
        for (size_t k = 0; k < d->n; k++)
            fprintf(f, "%s%lld", k ? ", " : "", (long long)d->ints[k]);
        fputs("};\n", f);
    } else if (d->kind == D_FLOAT_LIST) {
        fprintf(f, "static const double op%zu_arg%zu_floats[] = {", i, j);
        for (size_t k = 0; k < d->n; k++)
            fprintf(f, "%s%s", k ? ", " : "", cdouble(d->floats[k]));
        fputs("};\n", f);
    }
}

static void emit_default(FILE *f, size_t i, size_t j, const gen_default *d)
{
    if (d->kind == D_ABSENT)
        return;
    fprintf(f, ",\n     .def = {.kind = %s", gen_default_enums[d->kind]);
    if (d->expanded)
        fputs(", .expanded = true", f);
    switch (d->kind) {
    case D_BOOL:
    case D_INT:
        fprintf(f, ", .i = %lld", (long long)d->i);
        break;
    case D_FLOAT:
        fprintf(f, ", .f = %s", cdouble(d->f));
        break;
    case D_STR:
    case D_SCALAR_TYPE:
    case D_LAYOUT:
    case D_MEMORY_FORMAT:
        fprintf(f, ", .s = %s", cstr(d->s));
        break;
    case D_INT_LIST:
    case D_BOOL_LIST:
        fprintf(f, ", .n = %zu", d->n);
        if (d->n)
            fprintf(f, ", .ints = op%zu_arg%zu_ints", i, j);
        break;
    case D_FLOAT_LIST:
        fprintf(f, ", .n = %zu", d->n);
        if (d->n)
            fprintf(f, ", .floats = op%zu_arg%zu_floats", i, j);
        break;
    default:
        break;
    }
    fprintf(f, ", .text = %s}", cstr(d->text));
}

static void emit_op_arrays(FILE *f, size_t i, const gen_op *op)
{
    const gen_schema *s = &op->schema;
    fprintf(f, "/* %s */\n", ccomment(op->func));
    for (size_t j = 0; j < s->nargs; j++)
        emit_default_arrays(f, i, j, &s->args[j].def);
    if (s->nargs) {
        fprintf(f, "static const sc__op_arg op%zu_args[] = {\n", i);
        for (size_t j = 0; j < s->nargs; j++) {
            const gen_arg *a = &s->args[j];
            fprintf(f, "    {.name = %s,\n     .type = ", cstr(a->name));
            emit_type(f, &a->type);
            emit_alias(f, &a->alias);
            if (a->kwarg_only)
                fputs(",\n     .kwarg_only = true", f);
            if (a->mutated)
                fputs(",\n     .mutated = true", f);
            emit_default(f, i, j, &a->def);
            fputs("},\n", f);
        }
        fputs("};\n", f);
    }
    if (s->nrets) {
        fprintf(f, "static const sc__op_ret op%zu_rets[] = {\n", i);
        for (size_t j = 0; j < s->nrets; j++) {
            const gen_ret *r = &s->rets[j];
            fprintf(f, "    {.name = %s,\n     .type = ", cstr(r->name));
            emit_type(f, &r->type);
            emit_alias(f, &r->alias);
            fputs("},\n", f);
        }
        fputs("};\n", f);
    }
    if (op->nmutates) {
        fprintf(f, "static const uint16_t op%zu_mutates[] = {", i);
        for (size_t j = 0; j < op->nmutates; j++)
            fprintf(f, "%s%zu", j ? ", " : "", op->mutates[j]);
        fputs("};\n", f);
    }
    fputc('\n', f);
}

static void emit_op_info(FILE *f, size_t i, const gen_op *op)
{
    const gen_schema *s = &op->schema;
    fprintf(f, "    [%s] = {\n", op->enum_name);
    fprintf(f, "        .name = %s,\n", cstr(s->name));
    fprintf(f, "        .overload = %s,\n", cstr(s->overload));
    fprintf(f, "        .dotted = %s,\n", cstr(op->dotted));
    fprintf(f, "        .qualified = %s,\n", cstr(op->qualified));
    fprintf(f, "        .ns = %s,\n", cstr(op->ns));
    fprintf(f, "        .schema = %s,\n", cstr(op->func));
    if (op->python_op)
        fprintf(f, "        .python_op = %s,\n", cstr(op->python_op));
    if (op->python_target)
        fprintf(f, "        .python_target = %s,\n",
                cstr(op->python_target));
    fprintf(f, "        .args = %s,\n",
            s->nargs ? gen_printf("op%zu_args", i) : "NULL");
    fprintf(f, "        .rets = %s,\n",
            s->nrets ? gen_printf("op%zu_rets", i) : "NULL");
    fprintf(f, "        .mutates = %s,\n",
            op->nmutates ? gen_printf("op%zu_mutates", i) : "NULL");
    fprintf(f, "        .nargs = %zu,\n", s->nargs);
    fprintf(f, "        .npositional = %zu,\n", s->npositional);
    fprintf(f, "        .nrets = %zu,\n", s->nrets);
    fprintf(f, "        .nmutates = %zu,\n", op->nmutates);
    fprintf(f, "        .returns_tuple = %s,\n", cbool(s->returns_tuple));
    fprintf(f, "        .is_view = %s,\n", cbool(op->is_view));
    fprintf(f, "        .is_inplace = %s,\n", cbool(op->is_inplace));
    fprintf(f, "        .functorch_random = %s,\n",
            cbool(op->functorch_random));
    fprintf(f, "        .cls = %s,\n", gen_class_enums[op->cls]);
    fprintf(f, "        .shape = SC_SHAPE_%s,\n", gen_upper(op->shape));
    if (op->kernel)
        fprintf(f, "        .kernel = SC_KERNEL_%s,\n", gen_upper(op->kernel));
    else
        fprintf(f, "        .kernel = SC_KERNEL_NONE_,\n"
                   "        .no_kernel_reason = %s,\n",
                cstr(op->reason));
    if (op->flops)
        fprintf(f, "        .flops = SC_FLOPS_%s,\n", gen_upper(op->flops));
    else
        fputs("        .flops = SC_FLOPS_NONE_,\n", f);
    fprintf(f, "        .line = %d,\n    },\n", op->line);
}

static int cmp_dotted(const void *a, const void *b)
{
    const gen_op *x = *(const gen_op *const *)a, *y = *(const gen_op *const *)b;
    return strcmp(x->dotted, y->dotted);
}

static void emit_names(FILE *f, const char *decl, const gen_vec *v,
                       bool registry)
{
    fprintf(f, "%s = {\n", decl);
    for (size_t i = 0; i < v->n; i++) {
        const char *name = registry
                               ? ((const gen_registry_entry *)v->items[i])->name
                               : (const char *)v->items[i];
        fprintf(f, "    %s,\n", cstr(name));
    }
    fputs("    NULL,\n};\n\n", f);
}

bool gen_emit_source(FILE *f, const gen_table *t)
{
    banner(f, "graph/ops-gen.c",
           "The op table: schemas, classes, flags, shape rules and kernels "
           "of every op,\n * and the sorted name index.  The types are in "
           "graph/ops.h.");
    fputs("#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
          "#include \"graph/ops.h\"\n\n",
          f);
    for (size_t i = 0; i < t->ops.n; i++)
        emit_op_arrays(f, i, t->ops.items[i]);

    fputs("const sc__op_info sc__op_table[SC_OP_COUNT_] = {\n", f);
    for (size_t i = 0; i < t->ops.n; i++)
        emit_op_info(f, i, t->ops.items[i]);
    fputs("};\n\n", f);

    gen_op **sorted = gen_alloc(t->ops.n * sizeof *sorted);
    memcpy(sorted, t->ops.items, t->ops.n * sizeof *sorted);
    qsort(sorted, t->ops.n, sizeof *sorted, cmp_dotted);
    fputs("const sc__op_name sc__op_names_sorted[SC_OP_COUNT_] = {\n", f);
    for (size_t i = 0; i < t->ops.n; i++)
        fprintf(f, "    {%s, %s},\n", cstr(sorted[i]->dotted),
                sorted[i]->enum_name);
    fputs("};\n\n", f);

    emit_names(f, "const char *const sc__shape_rule_names[]", &t->shape_rules,
               true);
    emit_names(f, "const char *const sc__kernel_names[]", &t->kernels, false);
    emit_names(f, "const char *const sc__flops_formula_names[]", &t->flops,
               true);
    return !ferror(f);
}

/* ---- graph/ops-shapes-gen.c ---------------------------------------------------- */

bool gen_emit_shapes(FILE *f, const gen_table *t)
{
    banner(f, "graph/ops-shapes-gen.c",
           "The shape-rule table: sc__shape_<rule> by sc__shape_rule (the "
           "dispatch of\n * graph/shape-hook.c).");
    fputs("#include <stddef.h>\n\n#include \"graph/ops.h\"\n\n"
          "const sc__shape_fn sc__shape_rule_fns[] = {\n",
          f);
    for (size_t i = 0; i < t->shape_rules.n; i++) {
        const gen_registry_entry *e = t->shape_rules.items[i];
        fprintf(f, "    [SC_SHAPE_%s] = sc__shape_%s,\n", gen_upper(e->name),
                e->name);
    }
    fputs("    [SC_SHAPE_RULE_COUNT_] = NULL,\n};\n", f);
    return !ferror(f);
}

/* ---- kernels/kernels-gen.h and kernels/kernels-gen.c -------------------------- */

/* The ops a kernel serves, as a comment: "add.Tensor, add.Scalar". */
static const char *kernel_ops(const gen_kernel *kn)
{
    gen_str b = {0};
    for (size_t i = 0; i < kn->ops.n; i++) {
        const gen_op *op = kn->ops.items[i];
        gen_str_printf(&b, "%s%s", i ? ", " : "", op->dotted);
    }
    return ccomment(b.data ? b.data : "");
}

bool gen_emit_kernels_header(FILE *f, const gen_table *t)
{
    banner(f, "kernels/kernels-gen.h",
           "The kernels named by graph/ops.yaml: for each, the constants "
           "that name its\n * arguments (SC_KARG_<KERNEL>_<ARGUMENT>: the "
           "argument's index in the schema of\n * every op the kernel "
           "serves) and its prototype; and the dispatch table.\n * "
           "Included by kernels/kernels-internal.h and kernels/kernels-gen.c "
           "only.");
    fputs("#ifndef SYMCUT_KERNELS_KERNELS_GEN_H\n"
          "#define SYMCUT_KERNELS_KERNELS_GEN_H\n\n"
          "#include <symcut/error.h>\n\n"
          "#include \"graph/ops.h\"\n\n"
          "struct sc__kernel_call;\n\n",
          f);
    for (size_t k = 0; k < t->kernel_info.n; k++) {
        const gen_kernel *kn = t->kernel_info.items[k];
        fprintf(f, "/* sc__kernel_%s: %s */\n", kn->name, kernel_ops(kn));
        for (size_t a = 0; a < kn->args.n; a++) {
            const gen_kernel_arg *ka = kn->args.items[a];
            fprintf(f, "#define %s %zu\n", ka->constant, ka->index);
        }
        fprintf(f, "sc_status sc__kernel_%s(struct sc__kernel_call *call);"
                   "\n\n", kn->name);
    }
    fputs("/* sc__kernel_<name> by sc__kernel_id: the interpreter's "
          "dispatch. */\n"
          "extern const sc__kernel_fn sc__kernel_fns[];\n\n"
          "#endif /* SYMCUT_KERNELS_KERNELS_GEN_H */\n",
          f);
    return !ferror(f);
}

bool gen_emit_kernels(FILE *f, const gen_table *t)
{
    banner(f, "kernels/kernels-gen.c",
           "The kernel table: sc__kernel_<name> by sc__kernel_id (the "
           "interpreter's\n * dispatch).");
    fputs("#include <stddef.h>\n\n#include \"kernels/kernels-gen.h\"\n\n"
          "const sc__kernel_fn sc__kernel_fns[] = {\n",
          f);
    for (size_t i = 0; i < t->kernels.n; i++) {
        const char *k = t->kernels.items[i];
        fprintf(f, "    [SC_KERNEL_%s] = sc__kernel_%s,\n", gen_upper(k), k);
    }
    fputs("    [SC_KERNEL_COUNT_] = NULL,\n};\n", f);
    return !ferror(f);
}
