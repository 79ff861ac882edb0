/* symcut — lookups and argument binding over the generated op table. */
#include <string.h>

#include "graph/ops.h"
#include "util/internal.h"

#define SPELLING(NAME, spelling) spelling,
static const char *const class_names[SC_CLASS_COUNT_] = {
    SC__OP_CLASSES(SPELLING)};

static const char *const type_base_names[SC_TYPE_BASE_COUNT_] = {
    SC__OP_TYPE_BASES(SPELLING)};
#undef SPELLING

const char *sc__op_class_name(sc__op_class cls)
{
    if ((unsigned)cls >= (unsigned)SC_CLASS_COUNT_)
        return "?";
    return class_names[cls];
}

const char *sc__type_base_name(sc__type_base base)
{
    if ((unsigned)base >= (unsigned)SC_TYPE_BASE_COUNT_)
        return "?";
    return type_base_names[base];
}

/* ---- Name lookups ---------------------------------------------------------- */

/* Compare the n bytes at s with the NUL-terminated name, as strcmp would
 * compare s[0..n) + NUL with it. */
static int compare_name(const char *s, size_t n, const char *name)
{
    size_t m = strlen(name);
    int c = memcmp(s, name, n < m ? n : m);
    if (c != 0)
        return c;
    return n < m ? -1 : n > m ? 1 : 0;
}

sc__op sc__op_findn(const char *s, size_t n)
{
    size_t lo = 0, hi = SC_OP_COUNT_;
    if (!s)
        return SC_OP_INVALID_;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compare_name(s, n, sc__op_names_sorted[mid].dotted);
        if (c == 0)
            return sc__op_names_sorted[mid].op;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return SC_OP_INVALID_;
}

sc__op sc__op_find(const char *dotted)
{
    return dotted ? sc__op_findn(dotted, strlen(dotted)) : SC_OP_INVALID_;
}

sc__op sc__op_find_python(const char *symbol, unsigned arity)
{
    if (!symbol)
        return SC_OP_INVALID_;
    for (int i = 0; i < SC_OP_COUNT_; i++) {
        const sc__op_info *info = &sc__op_table[i];
        if (info->python_op && info->nargs == arity &&
            strcmp(info->python_op, symbol) == 0)
            return (sc__op)i;
    }
    return SC_OP_INVALID_;
}

sc__op sc__op_find_python_target(const char *target)
{
    if (!target)
        return SC_OP_INVALID_;
    for (int i = 0; i < SC_OP_COUNT_; i++) {
        const sc__op_info *info = &sc__op_table[i];
        if (info->python_target && strcmp(info->python_target, target) == 0)
            return (sc__op)i;
    }
    return SC_OP_INVALID_;
}

int sc__op_arg_index(sc__op op, const char *name)
{
    if ((unsigned)op >= (unsigned)SC_OP_COUNT_ || !name)
        return -1;
    const sc__op_info *info = &sc__op_table[op];
    for (int i = 0; i < info->nargs; i++)
        if (strcmp(info->args[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- Binding ----------------------------------------------------------------- */

sc_status sc__op_bind(sc__op op, size_t npos, const void *const positional[],
                      size_t nkw, const char *const kwnames[],
                      const void *const kwvalues[], sc__bound_arg bound[],
                      sc_error *err)
{
    sc__bound_arg slots[SC_OP_MAX_ARGS_];

    if ((unsigned)op >= (unsigned)SC_OP_COUNT_)
        return sc__error_set(err, SC_ERR_INVALID, "invalid op %d", (int)op);
    const sc__op_info *info = &sc__op_table[op];
    if (npos > info->npositional) {
        if (info->npositional == info->nargs)
            return sc__error_set(err, SC_ERR_TYPE,
                                 "%s() takes %u positional argument%s but %zu "
                                 "were given", info->dotted,
                                 (unsigned)info->npositional,
                                 info->npositional == 1 ? "" : "s", npos);
        return sc__error_set(err, SC_ERR_TYPE,
                             "%s() takes %u positional argument%s but %zu were "
                             "given (the %u after '*' are keyword-only)",
                             info->dotted, (unsigned)info->npositional,
                             info->npositional == 1 ? "" : "s", npos,
                             (unsigned)(info->nargs - info->npositional));
    }
    memset(slots, 0, sizeof slots);
    for (size_t i = 0; i < npos; i++) {
        slots[i].value = positional[i];
        slots[i].source = SC_ARG_POSITIONAL;
        slots[i].index = (int)i;
    }
    for (size_t k = 0; k < nkw; k++) {
        int a = sc__op_arg_index(op, kwnames[k]);
        if (a < 0)
            return sc__error_set(err, SC_ERR_TYPE,
                                 "%s() got an unexpected keyword argument "
                                 "'%s'", info->dotted,
                                 kwnames[k] ? kwnames[k] : "(null)");
        if (slots[a].source != SC_ARG_UNSET)
            return sc__error_set(err, SC_ERR_TYPE,
                                 "%s() got multiple values for argument '%s'",
                                 info->dotted, kwnames[k]);
        slots[a].value = kwvalues[k];
        slots[a].source = SC_ARG_KEYWORD;
        slots[a].index = (int)k;
    }
    for (int a = 0; a < info->nargs; a++) {
        const sc__op_arg *arg = &info->args[a];
        if (slots[a].source != SC_ARG_UNSET)
            continue;
        if (arg->def.kind == SC_DEF_ABSENT)
            return sc__error_set(err, SC_ERR_TYPE,
                                 "%s() missing required %sargument '%s'",
                                 info->dotted,
                                 arg->kwarg_only ? "keyword-only " : "",
                                 arg->name);
        slots[a].def = &arg->def;
        slots[a].source = SC_ARG_DEFAULT;
        slots[a].index = -1;
    }
    if (info->nargs)
        memcpy(bound, slots, info->nargs * sizeof *bound);
    return SC_OK;
}
