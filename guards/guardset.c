/* symcut — the guard-set object: its lines and sources, its C
 * spelling, and the checker compiled from it. */
#include <config.h>

#include <stdlib.h>

#include "guards/produce.h"

/* ---- The guard set object ------------------------------------------------ */

void sc_guard_set_free(sc_guard_set *gs)
{
    size_t i;
    if (!gs)
        return;
    for (i = 0; i < gs->nitems; i++)
        sc__free(gs->items[i].text);
    sc__free(gs->items);
    for (i = 0; i < gs->nsources; i++) {
        if (gs->sources)
            sc__free(gs->sources[i]);
        if (gs->vars)
            sc__free(gs->vars[i]);
    }
    sc__free(gs->sources);
    sc__free(gs->vars);
    sc__free(gs->var_exprs);
    sc__free(gs);
}

size_t sc_guard_set_count(const sc_guard_set *gs) { return gs->nitems; }

const char *sc_guard_set_text(const sc_guard_set *gs, size_t i)
{
    return i < gs->nitems ? gs->items[i].text : NULL;
}

sc_expr *sc_guard_set_expr(const sc_guard_set *gs, size_t i)
{
    return i < gs->nitems ? gs->items[i].expr : NULL;
}

size_t sc_guard_set_source_count(const sc_guard_set *gs)
{
    return gs->nsources;
}

const char *sc_guard_set_source(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->sources[i] : NULL;
}

const char *sc_guard_set_var(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->vars[i] : NULL;
}

sc_expr *sc_guard_set_var_expr(const sc_guard_set *gs, size_t i)
{
    return i < gs->nsources ? gs->var_exprs[i] : NULL;
}

/* ---- C -------------------------------------------------------------------- */

sc_status sc_guard_set_to_c(const sc_guard_set *gs, char **out, sc_error *err)
{
    sc_status status = SC_OK;
    sc__buf b;
    size_t i;

    *out = NULL;
    sc__buf_init(&b);
    if (gs->nitems == 0)
        sc__buf_puts(&b, "1");
    for (i = 0; i < gs->nitems; i++) {
        char *c = NULL;
        SC_CHECK(sc_expr_to_c(gs->ctx, gs->items[i].expr, NULL, &c, err));
        if (i > 0)
            sc__buf_puts(&b, " &&\n");
        sc__buf_putc(&b, '(');
        sc__buf_puts(&b, c);
        sc__buf_putc(&b, ')');
        free(c);
    }
    *out = sc__buf_take(&b);
    if (!*out)
        return sc__error_nomem(err);
    return SC_OK;
fail:
    sc__buf_free(&b);
    return status;
}

/* ---- The checker ---------------------------------------------------------- */

void sc_guard_checker_free(sc_guard_checker *chk)
{
    if (!chk)
        return;
    sc_prog_free(chk->prog);
    sc__free(chk->input_source);
    sc__free(chk);
}

size_t sc_guard_checker_source_count(const sc_guard_checker *chk)
{
    return chk->nsources;
}

size_t sc_guard_checker_count(const sc_guard_checker *chk)
{
    return chk->count;
}

sc_status sc_guard_set_compile(const sc_guard_set *gs, sc_guard_checker **out,
                               sc_error *err)
{
    sc_status status = SC_OK;
    sc_guard_checker *chk;
    sc_expr **exprs = NULL;
    size_t i, j;

    *out = NULL;
    chk = sc__calloc(1, sizeof *chk);
    if (!chk)
        return sc__error_nomem(err);
    chk->count = gs->nitems;
    chk->nsources = gs->nsources;
    if (gs->nitems > 0) {
        exprs = sc__malloc(gs->nitems * sizeof *exprs);
        if (!exprs) {
            status = sc__error_nomem(err);
            goto fail;
        }
        for (i = 0; i < gs->nitems; i++)
            exprs[i] = gs->items[i].expr;
    }
    SC_CHECK(sc_prog_new(gs->ctx, gs->nitems, exprs, &chk->prog, err));
    chk->ninputs = sc_prog_input_count(chk->prog);
    if (chk->ninputs > 0) {
        chk->input_source = sc__malloc(chk->ninputs * sizeof *chk->input_source);
        if (!chk->input_source) {
            status = sc__error_nomem(err);
            goto fail;
        }
    }
    for (i = 0; i < chk->ninputs; i++) {
        sc_expr *in = sc_prog_input(chk->prog, i);
        for (j = 0; j < gs->nsources; j++)
            if (gs->var_exprs[j] == in)
                break;
        if (j == gs->nsources) {
            status = sc__error_set(err, SC_ERR_INTERNAL,
                                   "a guard mentions '%s', which is not a "
                                   "source", sc_expr_symbol_name(in));
            goto fail;
        }
        chk->input_source[i] = j;
    }
    sc__free(exprs);
    *out = chk;
    return SC_OK;
fail:
    sc__free(exprs);
    sc_guard_checker_free(chk);
    return status;
}

#define CHECK_STACK_INPUTS 128

sc_status sc_guard_checker_check(const sc_guard_checker *chk,
                                 const int64_t *values,
                                 size_t *first_failing, sc_error *err)
{
    int64_t stack[CHECK_STACK_INPUTS] = {0}, *in = stack;
    sc_status status;
    size_t i;

    if (chk->ninputs > CHECK_STACK_INPUTS) {
        in = sc__malloc(chk->ninputs * sizeof *in);
        if (!in)
            return sc__error_nomem(err);
    }
    for (i = 0; i < chk->ninputs; i++)
        in[i] = values[chk->input_source[i]];
    status = sc_prog_first_false(chk->prog, in, first_failing, err);
    if (in != stack)
        sc__free(in);
    return status;
}
