/* gen-ops — load graph/ops.yaml with libyaml and check every entry.
 *
 * The file is a mapping with three keys: `shape_rules` and `flops_formulas`
 * (registries: name -> one-line description) and `ops` (a sequence of
 * entries).  Each problem is reported with the line of the offending field
 * and the name of the entry; loading goes on after an error so that one run
 * reports them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "graph/gen/gen.h"

#define CLASS_NAME(NAME, spelling) spelling,
#define CLASS_ENUM(NAME, spelling) "SC_CLASS_" #NAME,
const char *const gen_class_names[C_COUNT] = {SC__OP_CLASSES(CLASS_NAME)};
const char *const gen_class_enums[C_COUNT] = {SC__OP_CLASSES(CLASS_ENUM)};
#undef CLASS_NAME
#undef CLASS_ENUM

typedef struct loader {
    yaml_document_t doc;
    gen_table *t;
} loader;

static yaml_node_t *node_at(loader *ld, int id)
{
    return yaml_document_get_node(&ld->doc, id);
}

static int line_of(const yaml_node_t *n) { return (int)n->start_mark.line + 1; }
static int col_of(const yaml_node_t *n) { return (int)n->start_mark.column + 1; }

static const char *node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a sequence";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

/* The text of a scalar node, or NULL (after an error naming `what`). */
static const char *scalar_of(const yaml_node_t *n, const char *label,
                             const char *what)
{
    if (n->type != YAML_SCALAR_NODE) {
        gen_error(line_of(n), col_of(n), "%s%s%s must be a string, not %s",
                  label ? label : "", label ? ": " : "", what, node_kind(n));
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

/* ---- Registries ------------------------------------------------------------ */

static void load_registry(loader *ld, yaml_node_t *map, gen_vec *out,
                          const char *what)
{
    if (map->type != YAML_MAPPING_NODE) {
        gen_error(line_of(map), col_of(map),
                  "'%s' must be a mapping of name: description, not %s", what,
                  node_kind(map));
        return;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value);
        const char *name = scalar_of(k, what, "a name");
        if (!name)
            continue;
        if (!gen_is_ident(name) || name[strlen(name) - 1] == '_') {
            gen_error(line_of(k), col_of(k),
                      "%s: '%s' is not a valid name (a C identifier not "
                      "ending in '_')", what, name);
            continue;
        }
        const char *doc = scalar_of(v, gen_printf("%s '%s'", what, name),
                                    "the description");
        if (!doc)
            continue;
        bool dup = false;
        for (size_t i = 0; i < out->n; i++) {
            gen_registry_entry *e = out->items[i];
            if (strcmp(gen_upper(e->name), gen_upper(name)) == 0) {
                gen_error(line_of(k), col_of(k),
                          "%s: '%s' is declared twice (first at line %d)",
                          what, name, e->line);
                dup = true;
            }
        }
        if (dup)
            continue;
        gen_registry_entry *e = gen_alloc(sizeof *e);
        e->name = gen_strdup(name);
        e->doc = gen_strdup(doc);
        e->line = line_of(k);
        gen_vec_push(out, e);
    }
}

static gen_registry_entry *registry_find(gen_vec *reg, const char *name)
{
    for (size_t i = 0; i < reg->n; i++) {
        gen_registry_entry *e = reg->items[i];
        if (strcmp(e->name, name) == 0)
            return e;
    }
    return NULL;
}

/* ---- One op entry ------------------------------------------------------------ */

enum {
    F_FUNC, F_CLASS, F_SHAPE, F_KERNEL, F_REASON, F_FLOPS, F_RANDOM,
    F_MUTATES, F_NAMESPACE, F_PYTHON_OP, F_PYTHON_TARGET, F_DERIVATIVES,
    F_SHAPE_DOC, F_COUNT
};

static const char *const field_names[F_COUNT] = {
    "func", "class", "shape", "kernel", "reason", "flops", "functorch_random",
    "mutates", "namespace", "python_op", "python_target", "derivatives",
    "shape_doc",
};

static bool get_bool(yaml_node_t *n, const char *label, const char *field,
                     bool *out)
{
    const char *s = scalar_of(n, label, field);
    if (!s)
        return false;
    if (strcmp(s, "true") == 0)
        *out = true;
    else if (strcmp(s, "false") == 0)
        *out = false;
    else {
        gen_error(line_of(n), col_of(n), "%s: %s must be true or false, not "
                  "'%s'", label, field, s);
        return false;
    }
    return true;
}

/* The column in the file of column `col` of a one-line scalar, or 0. */
static int scalar_column(const yaml_node_t *n, int col)
{
    if (n->start_mark.line != n->end_mark.line)
        return 0;
    switch (n->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        return col_of(n) + col - 1;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        return col_of(n) + col; /* past the quote; escapes may shift it */
    default:
        return 0;
    }
}

static void parse_func(gen_op *op, yaml_node_t *n, bool *ok)
{
    const char *text = scalar_of(n, op->label, "func");
    if (!text) {
        *ok = false;
        return;
    }
    op->func = gen_strdup(text);
    int col = 0;
    char *msg = NULL;
    if (!gen_schema_parse(text, &op->schema, &col, &msg)) {
        const char *name = op->schema.name, *ov = op->schema.overload;
        if (name)
            op->label = gen_printf("op '%s.%s' (line %d)", name,
                                   ov && ov[0] ? ov : "default", op->line);
        gen_error(line_of(n), scalar_column(n, col),
                  "%s: bad schema at column %d: %s\n    %s\n    %*s^",
                  op->label, col, msg, text, col - 1, "");
        *ok = false;
        return;
    }
    const gen_schema *s = &op->schema;
    op->dotted = gen_printf("%s.%s", s->name,
                            s->overload[0] ? s->overload : "default");
    op->label = gen_printf("op '%s' (line %d)", op->dotted, op->line);
    char *canon = gen_schema_format(s);
    if (strcmp(canon, text) != 0) {
        gen_error(line_of(n), col_of(n),
                  "%s: the schema is not spelled as PyTorch spells it\n"
                  "    given:    %s\n    expected: %s",
                  op->label, text, canon);
        *ok = false;
    }
}

/* Resolve `mutates:` against the parsed schema. */
static void resolve_mutates(gen_op *op, yaml_node_t *list, loader *ld,
                            bool *ok)
{
    gen_schema *s = &op->schema;
    if (list) {
        if (list->type != YAML_SEQUENCE_NODE) {
            gen_error(line_of(list), col_of(list),
                      "%s: mutates must be a list of argument names, not %s",
                      op->label, node_kind(list));
            *ok = false;
            return;
        }
        size_t n = (size_t)(list->data.sequence.items.top -
                            list->data.sequence.items.start);
        op->mutates = gen_alloc((n ? n : 1) * sizeof *op->mutates);
        for (yaml_node_item_t *it = list->data.sequence.items.start;
             it < list->data.sequence.items.top; it++) {
            yaml_node_t *e = node_at(ld, *it);
            const char *name = scalar_of(e, op->label, "a mutates entry");
            if (!name) {
                *ok = false;
                continue;
            }
            size_t k;
            for (k = 0; k < s->nargs; k++)
                if (strcmp(s->args[k].name, name) == 0)
                    break;
            if (k == s->nargs) {
                gen_error(line_of(e), col_of(e),
                          "%s: mutates names '%s', which is not an argument",
                          op->label, name);
                *ok = false;
            } else if (s->args[k].type.base != T_TENSOR) {
                gen_error(line_of(e), col_of(e),
                          "%s: mutates names '%s', which is not a Tensor",
                          op->label, name);
                *ok = false;
            } else if (s->args[k].mutated) {
                gen_error(line_of(e), col_of(e),
                          "%s: mutates names '%s' twice", op->label, name);
                *ok = false;
            } else {
                s->args[k].mutated = true;
                op->mutates[op->nmutates++] = k;
            }
        }
    }
    for (size_t k = 0; k < s->nargs; k++)
        if (s->args[k].alias.is_write && !s->args[k].mutated) {
            gen_error(op->line, 0,
                      "%s: argument '%s' is written ('%s!') but not listed "
                      "in mutates", op->label, s->args[k].name,
                      s->args[k].alias.set);
            *ok = false;
        }
}

/* Load `derivatives:` (doc/autodiff.md): not_differentiable, or a mapping
 * of input names (or `a, b, c`) to formulas plus an optional
 * output_differentiability list.  The formulas are parsed later, once the
 * whole table is known (gen_deriv_check). */
static void load_derivatives(gen_op *op, yaml_node_t *n, loader *ld,
                             bool *ok)
{
    const gen_schema *s = &op->schema;
    op->deriv_line = line_of(n);
    if (n->type == YAML_SCALAR_NODE) {
        const char *v = (const char *)n->data.scalar.value;
        if (strcmp(v, "not_differentiable") == 0) {
            op->deriv_kind = GEN_DERIV_NOT_DIFF;
            return;
        }
        gen_error(line_of(n), col_of(n), "%s: derivatives must be "
                  "not_differentiable or a mapping of input names to "
                  "formulas, not '%s'", op->label, v);
        *ok = false;
        return;
    }
    if (n->type != YAML_MAPPING_NODE) {
        gen_error(line_of(n), col_of(n), "%s: derivatives must be "
                  "not_differentiable or a mapping, not %s", op->label,
                  node_kind(n));
        *ok = false;
        return;
    }
    op->deriv_kind = GEN_DERIV_FORMULAS;
    bool *covered = gen_alloc((s->nargs ? s->nargs : 1) * sizeof *covered);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value);
        const char *key = scalar_of(k, op->label, "a derivatives key");
        if (!key) {
            *ok = false;
            continue;
        }
        if (strcmp(key, "output_differentiability") == 0) {
            if (op->out_diff_line) {
                gen_error(line_of(k), col_of(k), "%s: derivatives: "
                          "output_differentiability given twice", op->label);
                *ok = false;
                continue;
            }
            op->out_diff_line = line_of(k);
            size_t cnt = v->type == YAML_SEQUENCE_NODE
                             ? (size_t)(v->data.sequence.items.top -
                                        v->data.sequence.items.start)
                             : 0;
            if (v->type != YAML_SEQUENCE_NODE || cnt != s->nrets) {
                gen_error(line_of(v), col_of(v), "%s: derivatives: "
                          "output_differentiability must be a list of %zu "
                          "true/false (one per return)", op->label, s->nrets);
                *ok = false;
                continue;
            }
            op->out_diff = gen_alloc(cnt * sizeof *op->out_diff);
            size_t i = 0;
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++, i++)
                if (!get_bool(node_at(ld, *it), op->label,
                              "an output_differentiability entry",
                              &op->out_diff[i]))
                    *ok = false;
            continue;
        }
        const char *text = scalar_of(v, op->label, "a derivative formula");
        if (!text) {
            *ok = false;
            continue;
        }
        gen_deriv *d = gen_alloc(sizeof *d);
        d->key = gen_strdup(key);
        d->key_line = line_of(k);
        d->key_col = col_of(k);
        d->text = gen_strdup(text);
        d->line = line_of(v);
        d->col = scalar_column(v, 1);
        d->non_diff = strcmp(text, "non_differentiable") == 0;
        /* The key: names separated by ", ". */
        gen_vec names = {0};
        const char *q = key;
        bool key_ok = true;
        for (;;) {
            const char *e = strchr(q, ',');
            size_t len = e ? (size_t)(e - q) : strlen(q);
            char *name = gen_strndup(q, len);
            if (!gen_is_ident(name)) {
                gen_error(d->key_line, d->key_col, "%s: derivatives: key "
                          "'%s' is not a list of input names separated by "
                          "', '", op->label, key);
                key_ok = false;
                break;
            }
            gen_vec_push(&names, name);
            if (!e)
                break;
            if (e[1] != ' ') {
                gen_error(d->key_line, d->key_col, "%s: derivatives: key "
                          "'%s' is not a list of input names separated by "
                          "', '", op->label, key);
                key_ok = false;
                break;
            }
            q = e + 2;
        }
        if (!key_ok) {
            *ok = false;
            continue;
        }
        d->ninputs = names.n;
        d->inputs = (char **)names.items;
        d->input_idx = gen_alloc(names.n * sizeof *d->input_idx);
        if (d->non_diff && names.n != 1) {
            gen_error(d->line, col_of(v), "%s: derivatives: "
                      "non_differentiable takes one input name per key",
                      op->label);
            key_ok = false;
        }
        for (size_t i = 0; i < names.n; i++) {
            size_t a;
            for (a = 0; a < s->nargs; a++)
                if (strcmp(s->args[a].name, d->inputs[i]) == 0)
                    break;
            if (a == s->nargs) {
                gen_error(d->key_line, d->key_col, "%s: derivatives: '%s' "
                          "is not an argument of the op", op->label,
                          d->inputs[i]);
                key_ok = false;
                continue;
            }
            if (s->args[a].type.base != T_TENSOR) {
                gen_error(d->key_line, d->key_col, "%s: derivatives: '%s' "
                          "is not a Tensor argument (only Tensor inputs "
                          "have gradients)", op->label, d->inputs[i]);
                key_ok = false;
                continue;
            }
            if (covered[a]) {
                gen_error(d->key_line, d->key_col, "%s: derivatives: input "
                          "'%s' has two formulas", op->label, d->inputs[i]);
                key_ok = false;
                continue;
            }
            covered[a] = true;
            d->input_idx[i] = (int)a;
        }
        if (!key_ok) {
            *ok = false;
            continue;
        }
        gen_vec_push(&op->derivs, d);
    }
    if (*ok)
        for (size_t a = 0; a < s->nargs; a++)
            if (s->args[a].type.base == T_TENSOR && !covered[a]) {
                gen_error(op->deriv_line, 0, "%s: derivatives: no formula "
                          "for Tensor input '%s' (give one or declare it "
                          "non_differentiable)", op->label, s->args[a].name);
                *ok = false;
            }
}

static void derive(gen_op *op, bool *ok)
{
    const gen_schema *s = &op->schema;
    size_t len = strlen(s->name);
    op->is_inplace = len > 1 && s->name[len - 1] == '_' &&
                     !(s->name[0] == '_' && s->name[1] == '_');
    if (op->is_inplace &&
        (s->nargs == 0 || !s->args[0].alias.is_write)) {
        gen_error(op->line, 0,
                  "%s: an in-place op (its name ends in '_') must write its "
                  "first argument, as in 'Tensor(a!) self'", op->label);
        *ok = false;
    }
    for (size_t i = 0; i < s->nrets; i++)
        if (s->rets[i].alias.set && !s->rets[i].alias.is_write)
            op->is_view = true;
    op->qualified = gen_printf("%s::%s%s%s", op->ns, s->name,
                               s->overload[0] ? "." : "", s->overload);
    /* A prims op is named with its namespace (prims.add.default, enum
     * SC_OP_PRIMS_ADD) so that it cannot meet the aten op of its name. */
    bool prims = strcmp(op->ns, "prims") == 0;
    if (prims) {
        op->dotted = gen_printf("prims.%s", op->dotted);
        op->label = gen_printf("op '%s' (line %d)", op->dotted, op->line);
    }
    op->enum_name = gen_printf("SC_OP_%s%s%s%s", prims ? "PRIMS_" : "",
                               gen_upper(s->name), s->overload[0] ? "_" : "",
                               gen_upper(s->overload));
}

static gen_op *load_op(loader *ld, yaml_node_t *item, size_t index)
{
    gen_op *op = gen_alloc(sizeof *op);
    op->line = line_of(item);
    op->label = gen_printf("entry %zu (line %d)", index + 1, op->line);
    bool ok = true;

    if (item->type != YAML_MAPPING_NODE) {
        gen_error(op->line, col_of(item), "%s: an entry must be a mapping "
                  "of fields, not %s", op->label, node_kind(item));
        return NULL;
    }
    yaml_node_t *fields[F_COUNT] = {0};
    gen_vec bad_keys = {0};     /* unknown or repeated, reported below */
    for (yaml_node_pair_t *p = item->data.mapping.pairs.start;
         p < item->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(ld, p->key);
        const char *key = scalar_of(k, op->label, "a field name");
        if (!key) {
            ok = false;
            continue;
        }
        int f;
        for (f = 0; f < F_COUNT; f++)
            if (strcmp(key, field_names[f]) == 0)
                break;
        if (f == F_COUNT || fields[f])
            gen_vec_push(&bad_keys, k);
        else
            fields[f] = node_at(ld, p->value);
    }

    /* The schema first, so that every later message names the op. */
    bool func_ok = fields[F_FUNC] != NULL;
    if (func_ok)
        parse_func(op, fields[F_FUNC], &func_ok);
    for (size_t i = 0; i < bad_keys.n; i++) {
        yaml_node_t *k = bad_keys.items[i];
        const char *key = (const char *)k->data.scalar.value;
        int f;
        for (f = 0; f < F_COUNT; f++)
            if (strcmp(key, field_names[f]) == 0)
                break;
        if (f == F_COUNT)
            gen_error(line_of(k), col_of(k), "%s: unknown field '%s'",
                      op->label, key);
        else
            gen_error(line_of(k), col_of(k), "%s: field '%s' given twice",
                      op->label, key);
        ok = false;
    }
    if (!fields[F_FUNC]) {
        gen_error(op->line, col_of(item), "%s: missing field 'func'",
                  op->label);
        return NULL;
    }
    if (!func_ok)
        return NULL; /* nothing else can be checked without the schema */

    op->ns = gen_strdup("aten");
    if (fields[F_NAMESPACE]) {
        const char *ns = scalar_of(fields[F_NAMESPACE], op->label,
                                   "namespace");
        if (ns && (strcmp(ns, "aten") == 0 || strcmp(ns, "prims") == 0 ||
                   strcmp(ns, "python") == 0))
            op->ns = gen_strdup(ns);
        else if (ns) {
            gen_error(line_of(fields[F_NAMESPACE]),
                      col_of(fields[F_NAMESPACE]),
                      "%s: unknown namespace '%s' (expected aten, prims or "
                      "python)",
                      op->label, ns);
            ok = false;
        }
    }

    static const int required[] = {F_CLASS, F_SHAPE, F_KERNEL};
    for (size_t r = 0; r < sizeof required / sizeof *required; r++)
        if (!fields[required[r]]) {
            gen_error(op->line, col_of(item), "%s: missing field '%s'",
                      op->label, field_names[required[r]]);
            ok = false;
        }

    if (fields[F_CLASS]) {
        const char *c = scalar_of(fields[F_CLASS], op->label, "class");
        op->cls = -1;
        for (int i = 0; c && i < C_COUNT; i++)
            if (strcmp(c, gen_class_names[i]) == 0)
                op->cls = i;
        if (c && op->cls < 0) {
            gen_str b = {0};
            for (int i = 0; i < C_COUNT; i++)
                gen_str_printf(&b, "%s%s", i ? ", " : "", gen_class_names[i]);
            gen_error(line_of(fields[F_CLASS]), col_of(fields[F_CLASS]),
                      "%s: unknown class '%s' (expected one of: %s)",
                      op->label, c, b.data);
        }
        if (op->cls < 0)
            ok = false;
    }
    if (fields[F_SHAPE]) {
        const char *sh = scalar_of(fields[F_SHAPE], op->label, "shape");
        op->shape_line = line_of(fields[F_SHAPE]);
        if (sh)
            op->shape = gen_strdup(sh);
        else
            ok = false;
    }
    if (fields[F_SHAPE_DOC]) {
        yaml_node_t *dn = fields[F_SHAPE_DOC];
        const char *doc = scalar_of(dn, op->label, "shape_doc");
        op->shape_doc_line = line_of(dn);
        op->shape_doc_col = col_of(dn);
        if (!doc)
            ok = false;
        else if (!*doc) {
            gen_error(line_of(dn), col_of(dn), "%s: shape_doc is empty",
                      op->label);
            ok = false;
        } else
            op->shape_doc = gen_strdup(doc);
    }
    if (fields[F_KERNEL]) {
        yaml_node_t *kn = fields[F_KERNEL];
        const char *k = scalar_of(kn, op->label, "kernel");
        if (!k)
            ok = false;
        else if (strcmp(k, "none") == 0) {
            const char *why = fields[F_REASON]
                                  ? scalar_of(fields[F_REASON], op->label,
                                              "reason")
                                  : NULL;
            if (!why || !*why) {
                gen_error(line_of(kn), col_of(kn),
                          "%s: 'kernel: none' needs a 'reason: \"...\"' "
                          "saying why the op cannot run", op->label);
                ok = false;
            } else
                op->reason = gen_strdup(why);
        } else if (!gen_is_ident(k) || k[strlen(k) - 1] == '_') {
            gen_error(line_of(kn), col_of(kn),
                      "%s: kernel '%s' is not a valid name (a C identifier "
                      "not ending in '_', or none)", op->label, k);
            ok = false;
        } else {
            op->kernel = gen_strdup(k);
            if (fields[F_REASON]) {
                gen_error(line_of(fields[F_REASON]),
                          col_of(fields[F_REASON]),
                          "%s: 'reason' is only for 'kernel: none'",
                          op->label);
                ok = false;
            }
        }
    }
    if (fields[F_FLOPS]) {
        const char *fl = scalar_of(fields[F_FLOPS], op->label, "flops");
        op->flops_line = line_of(fields[F_FLOPS]);
        if (fl)
            op->flops = gen_strdup(fl);
        else
            ok = false;
    }
    if (fields[F_RANDOM] &&
        !get_bool(fields[F_RANDOM], op->label, "functorch_random",
                  &op->functorch_random))
        ok = false;
    if (op->functorch_random && op->cls >= 0 && op->cls != C_RANDOM &&
        fields[F_CLASS]) {
        gen_error(line_of(fields[F_RANDOM]), col_of(fields[F_RANDOM]),
                  "%s: functorch_random is set but the class is '%s', not "
                  "random", op->label, gen_class_names[op->cls]);
        ok = false;
    }

    bool python = strcmp(op->ns, "python") == 0;
    static const int python_fields[] = {F_PYTHON_OP, F_PYTHON_TARGET};
    for (size_t r = 0; r < 2; r++) {
        yaml_node_t *n = fields[python_fields[r]];
        const char *fname = field_names[python_fields[r]];
        if (n && !python) {
            gen_error(line_of(n), col_of(n), "%s: '%s' is only for "
                      "'namespace: python' entries", op->label, fname);
            ok = false;
        } else if (!n && python && r == 1) {
            gen_error(op->line, col_of(item), "%s: missing field '%s' "
                      "(required for 'namespace: python')", op->label, fname);
            ok = false;
        } else if (n) {
            const char *v = scalar_of(n, op->label, fname);
            if (!v || !*v)
                ok = false;
            else if (r == 0)
                op->python_op = gen_strdup(v);
            else
                op->python_target = gen_strdup(v);
            op->python_line = line_of(n);
        }
    }

    /* An operator.* target is printed infix: it needs its symbol.  Other
     * targets (torch.sym_not) are functions, printed as calls. */
    if (python && !fields[F_PYTHON_OP] && op->python_target &&
        strncmp(op->python_target, "operator.", 9) == 0) {
        gen_error(op->line, col_of(item), "%s: missing field 'python_op' "
                  "(required for an operator.* python_target)", op->label);
        ok = false;
    }

    resolve_mutates(op, fields[F_MUTATES], ld, &ok);
    if (fields[F_DERIVATIVES])
        load_derivatives(op, fields[F_DERIVATIVES], ld, &ok);
    derive(op, &ok);
    return ok ? op : NULL;
}

/* ---- Whole-table checks -------------------------------------------------- */

static void check_unique_ops(gen_table *t)
{
    for (size_t i = 0; i < t->ops.n; i++) {
        gen_op *a = t->ops.items[i];
        if (strcmp(a->enum_name, "SC_OP_COUNT_") == 0 ||
            strcmp(a->enum_name, "SC_OP_INVALID_") == 0 ||
            strcmp(a->enum_name, "SC_OP_MAX_ARGS_") == 0 ||
            strcmp(a->enum_name, "SC_OP_MAX_RETS_") == 0)
            gen_error(a->line, 0, "%s: its enum name %s is reserved",
                      a->label, a->enum_name);
        for (size_t j = 0; j < i; j++) {
            gen_op *b = t->ops.items[j];
            if (strcmp(a->dotted, b->dotted) == 0)
                gen_error(a->line, 0, "%s: duplicate op; '%s' is already "
                          "declared at line %d", a->label, a->dotted,
                          b->line);
            else if (strcmp(a->enum_name, b->enum_name) == 0)
                gen_error(a->line, 0, "%s: its enum name %s is also the "
                          "enum name of %s", a->label, a->enum_name,
                          b->label);
            if (a->python_op && b->python_op &&
                strcmp(a->python_op, b->python_op) == 0 &&
                a->schema.nargs == b->schema.nargs)
                gen_error(a->python_line, 0, "%s: python_op '%s' with %zu "
                          "operands is already %s", a->label, a->python_op,
                          a->schema.nargs, b->label);
            if (a->python_target && b->python_target &&
                strcmp(a->python_target, b->python_target) == 0)
                gen_error(a->python_line, 0, "%s: python_target '%s' is "
                          "already %s", a->label, a->python_target,
                          b->label);
        }
    }
}

/* Rules declared by an entry (`shape_doc:`) join the registry after the
 * ones under shape_rules, in file order; each name is declared once. */
static void declare_entry_rules(gen_table *t)
{
    for (size_t i = 0; i < t->ops.n; i++) {
        gen_op *op = t->ops.items[i];
        bool dup = false;
        if (!op->shape_doc || !op->shape)
            continue;
        if (!gen_is_ident(op->shape) ||
            op->shape[strlen(op->shape) - 1] == '_') {
            gen_error(op->shape_line, 0, "%s: shape rule '%s' is not a valid "
                      "name (a C identifier not ending in '_')", op->label,
                      op->shape);
            continue;
        }
        for (size_t k = 0; k < t->shape_rules.n && !dup; k++) {
            gen_registry_entry *e = t->shape_rules.items[k];
            if (strcmp(gen_upper(e->name), gen_upper(op->shape)) == 0) {
                gen_error(op->shape_doc_line, op->shape_doc_col,
                          "%s: shape rule '%s' is declared twice (first at "
                          "line %d)", op->label, op->shape, e->line);
                dup = true;
            }
        }
        if (dup)
            continue;
        gen_registry_entry *e = gen_alloc(sizeof *e);
        e->name = gen_strdup(op->shape);
        e->doc = gen_strdup(op->shape_doc);
        e->line = op->shape_doc_line;
        gen_vec_push(&t->shape_rules, e);
    }
}

static void check_registries(gen_table *t)
{
    declare_entry_rules(t);
    for (size_t i = 0; i < t->ops.n; i++) {
        gen_op *op = t->ops.items[i];
        gen_registry_entry *e = registry_find(&t->shape_rules, op->shape);
        if (!e && op->shape_doc)
            ; /* declare_entry_rules said why */
        else if (!e)
            gen_error(op->shape_line, 0, "%s: unknown shape rule '%s' "
                      "(declare it under shape_rules or with shape_doc)",
                      op->label, op->shape);
        else
            e->used = true;
        if (op->flops) {
            e = registry_find(&t->flops, op->flops);
            if (!e)
                gen_error(op->flops_line, 0, "%s: unknown flops formula "
                          "'%s' (declare it under flops_formulas)", op->label,
                          op->flops);
            else
                e->used = true;
        }
        if (op->kernel) {
            bool seen = false;
            for (size_t k = 0; k < t->kernels.n && !seen; k++) {
                const char *name = t->kernels.items[k];
                if (strcmp(name, op->kernel) == 0)
                    seen = true;
                else if (strcmp(gen_upper(name), gen_upper(op->kernel)) == 0) {
                    gen_error(op->line, 0, "%s: kernel '%s' differs from "
                              "kernel '%s' only in case", op->label,
                              op->kernel, name);
                    seen = true;
                }
            }
            if (!seen) {
                gen_kernel *k = gen_alloc(sizeof *k);
                k->name = op->kernel;
                gen_vec_push(&t->kernels, op->kernel);
                gen_vec_push(&t->kernel_info, k);
            }
        }
    }
    for (size_t i = 0; i < t->shape_rules.n; i++) {
        gen_registry_entry *e = t->shape_rules.items[i];
        if (!e->used)
            gen_error(e->line, 0, "shape rule '%s' is declared but no op "
                      "uses it", e->name);
    }
    for (size_t i = 0; i < t->flops.n; i++) {
        gen_registry_entry *e = t->flops.items[i];
        if (!e->used)
            gen_error(e->line, 0, "flops formula '%s' is declared but no op "
                      "uses it", e->name);
    }
}

/* ---- Kernel arguments --------------------------------------------------------
 * A kernel reads its arguments through constants SC_KARG_<KERNEL>_<NAME>
 * (kernels/kernels-gen.h).  Every op naming the kernel must give an
 * argument name the same schema index, and no two constants may be spelled
 * alike, so that a schema edit that would move an argument under a kernel
 * fails here or in the kernel's build instead. */

static gen_kernel *kernel_of(gen_table *t, const char *name)
{
    for (size_t k = 0; k < t->kernel_info.n; k++) {
        gen_kernel *kn = t->kernel_info.items[k];
        if (strcmp(kn->name, name) == 0)
            return kn;
    }
    return NULL;
}

static void add_kernel_arg(gen_kernel *kn, const gen_op *op, size_t j)
{
    const char *name = op->schema.args[j].name;
    for (size_t a = 0; a < kn->args.n; a++) {
        gen_kernel_arg *ka = kn->args.items[a];
        if (strcmp(ka->name, name) != 0)
            continue;
        if (ka->index != j) {
            const gen_op *first = kn->ops.items[0];
            gen_error(op->line, 0, "%s: argument '%s' is argument %zu of "
                      "kernel '%s', but %zu in %s", op->label, name, j,
                      kn->name, ka->index, first->label);
        }
        return;
    }
    gen_kernel_arg *ka = gen_alloc(sizeof *ka);
    ka->name = gen_strdup(name);
    ka->index = j;
    ka->constant = gen_printf("SC_KARG_%s_%s", gen_upper(kn->name),
                              gen_upper(name));
    gen_vec_push(&kn->args, ka);
}

static void check_kernel_args(gen_table *t)
{
    for (size_t i = 0; i < t->ops.n; i++) {
        gen_op *op = t->ops.items[i];
        gen_kernel *kn = op->kernel ? kernel_of(t, op->kernel) : NULL;
        if (!kn)
            continue;
        gen_vec_push(&kn->ops, op);
        for (size_t j = 0; j < op->schema.nargs; j++)
            add_kernel_arg(kn, op, j);
    }
    for (size_t k = 0; k < t->kernel_info.n; k++) {
        const gen_kernel *kn = t->kernel_info.items[k];
        for (size_t a = 0; a < kn->args.n; a++) {
            const gen_kernel_arg *ka = kn->args.items[a];
            for (size_t k2 = 0; k2 <= k; k2++) {
                const gen_kernel *kn2 = t->kernel_info.items[k2];
                size_t end = k2 == k ? a : kn2->args.n;
                for (size_t a2 = 0; a2 < end; a2++) {
                    const gen_kernel_arg *kb = kn2->args.items[a2];
                    if (strcmp(ka->constant, kb->constant) == 0) {
                        const gen_op *op = kn->ops.items[0];
                        gen_error(op->line, 0, "%s: the constant %s of "
                                  "kernel '%s' argument '%s' is also that "
                                  "of kernel '%s' argument '%s'", op->label,
                                  ka->constant, kn->name, ka->name,
                                  kn2->name, kb->name);
                    }
                }
            }
        }
    }
}

/* ---- Loading --------------------------------------------------------------- */

static void load_root(loader *ld, yaml_node_t *root)
{
    gen_table *t = ld->t;
    yaml_node_t *ops = NULL, *rules = NULL, *flops = NULL;
    if (root->type != YAML_MAPPING_NODE) {
        gen_error(line_of(root), col_of(root), "the table must be a mapping "
                  "with keys shape_rules, flops_formulas and ops, not %s",
                  node_kind(root));
        return;
    }
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(ld, p->key), *v = node_at(ld, p->value);
        const char *key = scalar_of(k, NULL, "a top-level key");
        yaml_node_t **slot = NULL;
        if (!key)
            continue;
        if (strcmp(key, "ops") == 0)
            slot = &ops;
        else if (strcmp(key, "shape_rules") == 0)
            slot = &rules;
        else if (strcmp(key, "flops_formulas") == 0)
            slot = &flops;
        else {
            gen_error(line_of(k), col_of(k), "unknown top-level key '%s' "
                      "(expected shape_rules, flops_formulas or ops)", key);
            continue;
        }
        if (*slot)
            gen_error(line_of(k), col_of(k), "top-level key '%s' given "
                      "twice", key);
        *slot = v;
    }
    if (rules)
        load_registry(ld, rules, &t->shape_rules, "shape_rules");
    else
        gen_error(0, 0, "missing top-level key 'shape_rules'");
    if (flops)
        load_registry(ld, flops, &t->flops, "flops_formulas");
    if (!ops) {
        gen_error(0, 0, "missing top-level key 'ops'");
        return;
    }
    if (ops->type != YAML_SEQUENCE_NODE) {
        gen_error(line_of(ops), col_of(ops), "'ops' must be a sequence of "
                  "entries, not %s", node_kind(ops));
        return;
    }
    size_t index = 0;
    for (yaml_node_item_t *it = ops->data.sequence.items.start;
         it < ops->data.sequence.items.top; it++, index++) {
        gen_op *op = load_op(ld, node_at(ld, *it), index);
        if (op)
            gen_vec_push(&t->ops, op);
    }
    if (index == 0)
        gen_error(line_of(ops), col_of(ops), "'ops' is empty");
    if (gen_error_count() == 0) {
        check_unique_ops(t);
        check_registries(t);
    }
    if (gen_error_count() == 0)
        check_kernel_args(t);
    if (gen_error_count() == 0)
        gen_deriv_check(t);
}

bool gen_table_load(const char *path, gen_table *t)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gen_error(0, 0, "cannot open: %s", strerror(errno));
        return false;
    }
    yaml_parser_t parser;
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.t = t;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        gen_error(0, 0, "cannot initialize the YAML parser");
        return false;
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &ld.doc)) {
        int line = (int)parser.problem_mark.line + 1;
        int col = (int)parser.problem_mark.column + 1;
        if (parser.context)
            gen_error(line, col, "not valid YAML: %s %s", parser.problem,
                      parser.context);
        else
            gen_error(line, col, "not valid YAML: %s",
                      parser.problem ? parser.problem : "unknown problem");
        yaml_parser_delete(&parser);
        fclose(f);
        return false;
    }
    yaml_node_t *root = yaml_document_get_root_node(&ld.doc);
    if (!root)
        gen_error(0, 0, "the file is empty");
    else
        load_root(&ld, root);
    yaml_document_delete(&ld.doc);
    yaml_parser_delete(&parser);
    fclose(f);
    return gen_error_count() == 0;
}
