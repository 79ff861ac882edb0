/* symcut — compiled programs: a list of expressions turned into flat
 * bytecode over an int64_t register file, evaluated with overflow checks.
 *
 * Compilation walks every expression once (explicit stack), in order.  A
 * node already compiled is not compiled again: its register is reused
 * (interning makes equal subexpressions the same pointer), across all the
 * expressions.  And/Or jump out at the first argument that decides them
 * (a false one decides an And whatever the others would give, as in
 * sc_expr_eval); nodes first compiled inside the skippable part of an
 * And/Or are forgotten when it ends, so a later use recomputes them.  Then
 * a linear-scan allocator maps the virtual registers onto few physical
 * ones (jumps only go forward, so live intervals are exact).
 *
 * Evaluation runs the code on int64_t.  When an operation overflows or
 * divides by zero, or reaches an expression that holds a constant beyond
 * int64_t (compiled as one GMP instruction), that expression and the ones
 * after it are evaluated exactly by the general evaluator (eval.c), which
 * gives the same values and the same errors. */
#include <stdlib.h>
#include <string.h>

#include "symint/expr.h"
#include "symint/pydiv.h"


/* ---- Instructions ------------------------------------------------------
 * d is the destination register, a and b operand registers (or, where
 * noted, an input, output or instruction index), imm an immediate. */
typedef enum opcode {
    OP_LOAD,      /* d = inputs[a] */
    OP_CONST,     /* d = imm */
    OP_MOV,       /* d = a */
    OP_ADD,       /* d = a + b */
    OP_SUB,       /* d = a - b */
    OP_MUL,       /* d = a * b */
    OP_ADDI,      /* d = a + imm */
    OP_MULI,      /* d = a * imm */
    OP_ADDMULI,   /* d = a + b * imm */
    OP_SQR,       /* d = a * a */
    OP_POW,       /* d = a ** (uint64_t)imm */
    OP_FLOORDIV,  /* d = a // b */
    OP_FLOORDIVP, /* d = a // imm, imm > 0 */
    OP_FLOORDIVI, /* d = a // imm, imm != 0 */
    OP_CEILDIV,   /* d = CeilDiv(a, b) */
    OP_CEILDIVI,  /* d = CeilDiv(a, imm), imm != 0 */
    OP_MOD,       /* d = a % b */
    OP_MODP,      /* d = a % imm, imm > 0 */
    OP_MODI,      /* d = a % imm, imm != 0 */
    OP_MIN,       /* d = min(a, b) */
    OP_MAX,
    OP_MINI,      /* d = min(a, imm) */
    OP_MAXI,
    OP_EQI,       /* d = a == imm */
    OP_NEI,       /* d = a != imm */
    OP_LEI,       /* d = a <= imm */
    OP_GEI,       /* d = a >= imm */
    OP_ANDJ,      /* if a == 0: d = 0, jump to instruction b */
    OP_ORJ,       /* if a != 0: d = 1, jump to instruction b */
    OP_OUT,       /* output b = a */
    OP_GMP,       /* output b, evaluated exactly */
    OP_END,
    OP_COUNT_
} opcode;

typedef struct insn {
    uint8_t op;
    uint32_t d, a, b;
    int64_t imm;
} insn;

/* Operand roles, for register allocation. */
enum { R_D = 1, R_A = 2, R_B = 4 };
static const uint8_t op_regs[OP_COUNT_] = {
    [OP_LOAD] = R_D,
    [OP_CONST] = R_D,
    [OP_MOV] = R_D | R_A,
    [OP_ADD] = R_D | R_A | R_B,
    [OP_SUB] = R_D | R_A | R_B,
    [OP_MUL] = R_D | R_A | R_B,
    [OP_ADDI] = R_D | R_A,
    [OP_MULI] = R_D | R_A,
    [OP_ADDMULI] = R_D | R_A | R_B,
    [OP_SQR] = R_D | R_A,
    [OP_POW] = R_D | R_A,
    [OP_FLOORDIV] = R_D | R_A | R_B,
    [OP_FLOORDIVP] = R_D | R_A,
    [OP_FLOORDIVI] = R_D | R_A,
    [OP_CEILDIV] = R_D | R_A | R_B,
    [OP_CEILDIVI] = R_D | R_A,
    [OP_MOD] = R_D | R_A | R_B,
    [OP_MODP] = R_D | R_A,
    [OP_MODI] = R_D | R_A,
    [OP_MIN] = R_D | R_A | R_B,
    [OP_MAX] = R_D | R_A | R_B,
    [OP_MINI] = R_D | R_A,
    [OP_MAXI] = R_D | R_A,
    [OP_EQI] = R_D | R_A,
    [OP_NEI] = R_D | R_A,
    [OP_LEI] = R_D | R_A,
    [OP_GEI] = R_D | R_A,
    [OP_ANDJ] = R_D | R_A,
    [OP_ORJ] = R_D | R_A,
    [OP_OUT] = R_A,
    [OP_GMP] = 0,
    [OP_END] = 0,
};

struct sc_prog {
    sc_ctx *ctx;
    insn *code;
    size_t ncode;
    size_t nregs;       /* physical registers */
    sc_expr **inputs;   /* free symbols, sorted by index */
    size_t ninputs;
    sc_expr **exprs;    /* the outputs' expressions */
    size_t nexprs;
};

enum { LOCAL_REGS = 256 };

/* ---- Compilation -------------------------------------------------------- */

/* How a frame emits its node once its children are compiled. */
typedef enum cmode {
    M_ADD,      /* linear combination plus constant */
    M_MUL,
    M_DIV,      /* FloorDiv/CeilDiv/Mod of two registers */
    M_DIVI,     /* ... by the constant imm */
    M_MINMAX,   /* with the constant imm when has_imm */
    M_REL,      /* relation of the child against imm */
    M_REL_ADD,  /* relation whose Add operand's terms are the children */
    M_ANDOR
} cmode;

typedef struct cframe {
    sc_expr *e;
    sc_expr *const *kids;
    uint32_t nkids, i;
    size_t vbase;     /* value stack height at the start */
    size_t pbase;     /* And/Or: patch stack height at the start */
    size_t ubase;     /* And/Or: undo log height at the region start */
    uint32_t dst;     /* And/Or: result register */
    cmode mode;
    bool has_imm;
    int64_t imm;
} cframe;

typedef struct comp {
    sc_ctx *ctx;
    sc__memo *regs;     /* node -> virtual register */
    sc__memo *big;      /* node -> 1 if it holds a constant beyond int64 */
    sc__memo *input_of; /* symbol -> input position */
    insn *code;
    size_t ncode, code_cap;
    uint32_t nvregs;
    const sc_expr **undo; /* nodes compiled inside a conditional region */
    size_t nundo, undo_cap, depth;
    cframe *frames;
    size_t nframes, frames_cap;
    uint32_t *vals;       /* registers of compiled children */
    size_t nvals, vals_cap;
    size_t *patches;      /* jumps to patch at the end of an And/Or */
    size_t npatches, patches_cap;
    sc_expr **walk;       /* scratch stack for the pre-pass */
    size_t nwalk, walk_cap;
    sc_expr **syms;       /* free symbols found */
    size_t nsyms, syms_cap;
    bool failed;          /* memory exhausted */
} comp;

#define GROW(c, arr, n, cap, need)                                           \
    do {                                                                     \
        void *p_ = (arr);                                                    \
        if ((need) > (cap)) {                                                \
            if (!sc__grow(&p_, &(cap), (need), sizeof *(arr))) {             \
                (c)->failed = true;                                          \
                break;                                                       \
            }                                                                \
            (arr) = p_;                                                      \
        }                                                                    \
    } while (0)

static size_t emit(comp *c, opcode op, uint32_t d, uint32_t a, uint32_t b,
                   int64_t imm)
{
    insn *in;
    GROW(c, c->code, c->ncode, c->code_cap, c->ncode + 1);
    if (c->failed)
        return 0;
    in = &c->code[c->ncode];
    in->op = (uint8_t)op;
    in->d = d;
    in->a = a;
    in->b = b;
    in->imm = imm;
    return c->ncode++;
}

static uint32_t new_reg(comp *c) { return c->nvregs++; }

/* d = op(a, ...) into a new register. */
static uint32_t emit_new(comp *c, opcode op, uint32_t a, uint32_t b,
                         int64_t imm)
{
    uint32_t d = new_reg(c);
    emit(c, op, d, a, b, imm);
    return d;
}

static void vpush(comp *c, uint32_t r)
{
    GROW(c, c->vals, c->nvals, c->vals_cap, c->nvals + 1);
    if (!c->failed)
        c->vals[c->nvals++] = r;
}

/* Remember that e is in register r (forgotten at the end of the current
 * conditional region, if any). */
static void remember(comp *c, const sc_expr *e, uint32_t r)
{
    if (!sc__memo_put(c->regs, e, r)) {
        c->failed = true;
        return;
    }
    if (c->depth) {
        GROW(c, c->undo, c->nundo, c->undo_cap, c->nundo + 1);
        if (!c->failed)
            c->undo[c->nundo++] = e;
    }
}

static bool small_int(const sc_expr *e)
{
    return e->kind == SC_EXPR_INT && !e->u.value.big;
}

/* A leaf compiled directly; false if e is not a leaf. */
static bool compile_leaf(comp *c, sc_expr *e)
{
    uint32_t r;
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_INT:
        r = emit_new(c, OP_CONST, 0, 0, e->u.value.small);
        break;
    case SC_EXPR_TRUE:
        r = emit_new(c, OP_CONST, 0, 0, 1);
        break;
    case SC_EXPR_FALSE:
        r = emit_new(c, OP_CONST, 0, 0, 0);
        break;
    case SC_EXPR_SYMBOL:
        r = emit_new(c, OP_LOAD, (uint32_t)sc__memo_get(c->input_of, e), 0,
                     0);
        break;
    default:
        return false;
    }
    remember(c, e, r);
    vpush(c, r);
    return true;
}

/* Start compiling e: use its register, compile a leaf, or push a frame. */
static void enter(comp *c, sc_expr *e)
{
    size_t r = sc__memo_get(c->regs, e);
    cframe *f;

    if (r != SC__MEMO_NONE) {
        vpush(c, (uint32_t)r);
        return;
    }
    if (compile_leaf(c, e))
        return;
    GROW(c, c->frames, c->nframes, c->frames_cap, c->nframes + 1);
    if (c->failed)
        return;
    f = &c->frames[c->nframes++];
    memset(f, 0, sizeof *f);
    f->e = e;
    f->kids = e->args;
    f->nkids = e->nargs;
    f->vbase = c->nvals;
    switch ((sc_expr_kind)e->kind) {
    case SC_EXPR_ADD:
        f->mode = M_ADD;
        break;
    case SC_EXPR_MUL:
        f->mode = M_MUL;
        break;
    case SC_EXPR_FLOORDIV:
    case SC_EXPR_CEILDIV:
    case SC_EXPR_MOD:
        f->mode = M_DIV;
        if (small_int(e->args[1]) && e->args[1]->u.value.small != 0) {
            f->mode = M_DIVI;
            f->imm = e->args[1]->u.value.small;
            f->nkids = 1;
        }
        break;
    case SC_EXPR_MIN:
    case SC_EXPR_MAX:
        f->mode = M_MINMAX;
        if (small_int(e->args[0])) {
            f->has_imm = true;
            f->imm = e->args[0]->u.value.small;
            f->kids = e->args + 1;
            f->nkids = e->nargs - 1;
        }
        break;
    case SC_EXPR_EQ:
    case SC_EXPR_NE:
    case SC_EXPR_LE: {
        sc_expr *a = e->args[0];
        f->mode = M_REL;
        f->imm = 0;
        /* e0 + sum <= 0 compares the sum with -e0: no constant add. */
        if (a->kind == SC_EXPR_ADD && !a->u.value.big &&
            a->u.value.small != INT64_MIN &&
            sc__memo_get(c->regs, a) == SC__MEMO_NONE) {
            f->mode = M_REL_ADD;
            f->kids = a->args;
            f->nkids = a->nargs;
        }
        break;
    }
    case SC_EXPR_AND:
    case SC_EXPR_OR:
        f->mode = M_ANDOR;
        f->dst = new_reg(c);
        f->pbase = c->npatches;
        break;
    default:
        c->failed = true; /* cannot happen: leaves are handled above */
        break;
    }
}

/* sum coefs[i] * vals[i] into a register (n >= 1, coefficients small). */
static uint32_t emit_lin(comp *c, const sc__int *coefs, const uint32_t *v,
                         uint32_t n)
{
    uint32_t acc, i;
    int64_t k = coefs[0].small;

    acc = k == 1 ? v[0] : emit_new(c, OP_MULI, v[0], 0, k);
    for (i = 1; i < n; i++) {
        k = coefs[i].small;
        if (k == 1)
            acc = emit_new(c, OP_ADD, acc, v[i], 0);
        else if (k == -1)
            acc = emit_new(c, OP_SUB, acc, v[i], 0);
        else
            acc = emit_new(c, OP_ADDMULI, acc, v[i], k);
    }
    return acc;
}

static uint32_t emit_pow(comp *c, uint32_t r, uint64_t n)
{
    if (n == 1)
        return r;
    if (n == 2)
        return emit_new(c, OP_SQR, r, 0, 0);
    return emit_new(c, OP_POW, r, 0, (int64_t)n);
}

static opcode rel_op(const sc_expr *e)
{
    return e->kind == SC_EXPR_EQ ? OP_EQI
         : e->kind == SC_EXPR_NE ? OP_NEI : OP_LEI;
}

/* Emit the frame's node; its children's registers are on the value
 * stack.  Returns the result register. */
static uint32_t finish(comp *c, cframe *f)
{
    sc_expr *e = f->e;
    const uint32_t *v = c->vals + f->vbase;
    uint32_t acc, i;
    opcode op;

    switch (f->mode) {
    case M_ADD:
        acc = emit_lin(c, e->coefs, v, e->nargs);
        if (e->u.value.small != 0)
            acc = emit_new(c, OP_ADDI, acc, 0, e->u.value.small);
        return acc;
    case M_MUL:
        acc = emit_pow(c, v[0], e->exps[0]);
        for (i = 1; i < e->nargs; i++)
            acc = emit_new(c, OP_MUL, acc, emit_pow(c, v[i], e->exps[i]), 0);
        return acc;
    case M_DIV:
        op = e->kind == SC_EXPR_FLOORDIV ? OP_FLOORDIV
           : e->kind == SC_EXPR_CEILDIV ? OP_CEILDIV : OP_MOD;
        return emit_new(c, op, v[0], v[1], 0);
    case M_DIVI:
        if (e->kind == SC_EXPR_FLOORDIV)
            op = f->imm > 0 ? OP_FLOORDIVP : OP_FLOORDIVI;
        else if (e->kind == SC_EXPR_CEILDIV)
            op = OP_CEILDIVI;
        else
            op = f->imm > 0 ? OP_MODP : OP_MODI;
        return emit_new(c, op, v[0], 0, f->imm);
    case M_MINMAX:
        acc = v[0];
        for (i = 1; i < f->nkids; i++)
            acc = emit_new(c, e->kind == SC_EXPR_MIN ? OP_MIN : OP_MAX, acc,
                           v[i], 0);
        if (f->has_imm)
            acc = emit_new(c, e->kind == SC_EXPR_MIN ? OP_MINI : OP_MAXI,
                           acc, 0, f->imm);
        return acc;
    case M_REL:
        return emit_new(c, rel_op(e), v[0], 0, 0);
    case M_REL_ADD: {
        const sc_expr *a = e->args[0];
        int64_t k = a->u.value.small;
        if (a->nargs == 1 && a->coefs[0].small == -1) {
            /* k - t <= 0 is t >= k; k - t == 0 is t == k */
            op = e->kind == SC_EXPR_LE ? OP_GEI : rel_op(e);
            return emit_new(c, op, v[0], 0, k);
        }
        acc = emit_lin(c, a->coefs, v, a->nargs);
        return emit_new(c, rel_op(e), acc, 0, -k);
    }
    case M_ANDOR: {
        size_t p, end;
        /* the previous arguments' registers were consumed by the jumps */
        emit(c, OP_MOV, f->dst, c->vals[c->nvals - 1], 0, 0);
        end = c->ncode;
        for (p = f->pbase; p < c->npatches; p++)
            c->code[c->patches[p]].b = (uint32_t)end;
        c->npatches = f->pbase;
        /* Leave the conditional region: forget what was compiled there. */
        for (p = f->ubase; p < c->nundo; p++)
            if (!sc__memo_put(c->regs, c->undo[p], SC__MEMO_NONE))
                c->failed = true;
        c->nundo = f->ubase;
        c->depth--;
        return f->dst;
    }
    }
    return 0;
}

/* Compile e; its register is pushed on the value stack. */
static void compile_expr(comp *c, sc_expr *e)
{
    size_t base = c->nframes;

    enter(c, e);
    while (!c->failed && c->nframes > base) {
        cframe *f = &c->frames[c->nframes - 1];
        uint32_t r;

        if (f->i < f->nkids) {
            if (f->mode == M_ANDOR && f->i > 0) {
                /* The value of the previous argument decides. */
                uint32_t prev = c->vals[--c->nvals];
                size_t pc = emit(c, f->e->kind == SC_EXPR_AND ? OP_ANDJ
                                                             : OP_ORJ,
                                 f->dst, prev, 0, 0);
                GROW(c, c->patches, c->npatches, c->patches_cap,
                     c->npatches + 1);
                if (c->failed)
                    return;
                c->patches[c->npatches++] = pc;
                if (f->i == 1) {
                    f->ubase = c->nundo;
                    c->depth++;
                }
            }
            enter(c, f->kids[f->i++]);
            continue;
        }
        r = finish(c, f);
        c->nvals = f->vbase;
        c->nframes--;
        remember(c, f->e, r);
        vpush(c, r);
    }
}

/* ---- Pre-pass: free symbols, and which nodes hold big constants -------- */

static bool node_is_big(const sc_expr *e)
{
    uint32_t i;
    if ((e->kind == SC_EXPR_INT || e->kind == SC_EXPR_ADD) &&
        e->u.value.big)
        return true;
    if (e->kind == SC_EXPR_ADD)
        for (i = 0; i < e->nargs; i++)
            if (e->coefs[i].big)
                return true;
    return false;
}

/* Visit the nodes of e not seen before (c->big doubles as the visited
 * set); returns whether e holds a big constant. */
static bool prepass(comp *c, sc_expr *e)
{
    size_t v = sc__memo_get(c->big, e);

    if (v != SC__MEMO_NONE)
        return v != 0;
    c->nwalk = 0;
    GROW(c, c->walk, c->nwalk, c->walk_cap, 1);
    if (c->failed)
        return false;
    c->walk[c->nwalk++] = e;
    /* Post-order: a node is finished when all its children are. */
    while (c->nwalk && !c->failed) {
        sc_expr *n = c->walk[c->nwalk - 1];
        bool ready = true, big;
        uint32_t i;

        if (sc__memo_get(c->big, n) != SC__MEMO_NONE) {
            c->nwalk--;
            continue;
        }
        for (i = 0; i < n->nargs; i++) {
            if (sc__memo_get(c->big, n->args[i]) != SC__MEMO_NONE)
                continue;
            ready = false;
            GROW(c, c->walk, c->nwalk, c->walk_cap, c->nwalk + 1);
            if (c->failed)
                return false;
            c->walk[c->nwalk++] = n->args[i];
        }
        if (!ready)
            continue;
        big = node_is_big(n);
        for (i = 0; i < n->nargs && !big; i++)
            big = sc__memo_get(c->big, n->args[i]) != 0;
        if (n->kind == SC_EXPR_SYMBOL) {
            GROW(c, c->syms, c->nsyms, c->syms_cap, c->nsyms + 1);
            if (c->failed)
                return false;
            c->syms[c->nsyms++] = n;
        }
        if (!sc__memo_put(c->big, n, big))
            c->failed = true;
        c->nwalk--;
    }
    return !c->failed && sc__memo_get(c->big, e) == 1;
}

static int cmp_sym(const void *a, const void *b)
{
    size_t x = (*(sc_expr *const *)a)->u.sym.index;
    size_t y = (*(sc_expr *const *)b)->u.sym.index;
    return (x > y) - (x < y);
}

/* ---- Register allocation -----------------------------------------------
 * Linear scan over the code: a register's physical slot is taken at its
 * first write and given back after its last read.  Jumps go forward and a
 * register written inside a conditional region is read only there (or is
 * the And/Or result, live across the whole region), so this is exact. */

static bool allocate(comp *c, size_t *nregs)
{
    size_t n = c->nvregs, pc, nphys = 0, nfree = 0;
    size_t *last = NULL;
    uint32_t *phys = NULL, *freel = NULL;
    bool ok = false;

    last = sc__malloc((n ? n : 1) * sizeof *last);
    phys = sc__malloc((n ? n : 1) * sizeof *phys);
    freel = sc__malloc((n ? n : 1) * sizeof *freel);
    if (!last || !phys || !freel)
        goto done;
    for (pc = 0; pc < n; pc++) {
        last[pc] = SIZE_MAX;
        phys[pc] = UINT32_MAX;
    }
    for (pc = 0; pc < c->ncode; pc++) {
        const insn *in = &c->code[pc];
        uint8_t roles = op_regs[in->op];
        if (roles & R_A)
            last[in->a] = pc;
        if (roles & R_B)
            last[in->b] = pc;
    }
    for (pc = 0; pc < c->ncode; pc++) {
        insn *in = &c->code[pc];
        uint8_t roles = op_regs[in->op];
        uint32_t va = in->a, vb = in->b, vd = in->d;

        if (roles & R_A)
            in->a = phys[va];
        if (roles & R_B)
            in->b = phys[vb];
        /* Reads happen before the write: free the dying operands first. */
        if ((roles & R_A) && last[va] == pc) {
            freel[nfree++] = phys[va];
            last[va] = SIZE_MAX - 1; /* freed */
        }
        if ((roles & R_B) && last[vb] == pc) {
            freel[nfree++] = phys[vb];
            last[vb] = SIZE_MAX - 1;
        }
        if (roles & R_D) {
            if (phys[vd] == UINT32_MAX)
                phys[vd] = nfree ? freel[--nfree] : (uint32_t)nphys++;
            in->d = phys[vd];
            if (last[vd] == SIZE_MAX) {
                /* never read */
                freel[nfree++] = phys[vd];
                last[vd] = SIZE_MAX - 1;
            }
        }
    }
    *nregs = nphys;
    ok = true;
done:
    sc__free(last);
    sc__free(phys);
    sc__free(freel);
    return ok;
}

static void comp_free(comp *c)
{
    sc__memo_free(c->regs);
    sc__memo_free(c->big);
    sc__memo_free(c->input_of);
    sc__free(c->code);
    sc__free(c->undo);
    sc__free(c->frames);
    sc__free(c->vals);
    sc__free(c->patches);
    sc__free(c->walk);
    sc__free(c->syms);
}

void sc_prog_free(sc_prog *prog)
{
    if (!prog)
        return;
    sc__free(prog->code);
    sc__free(prog->inputs);
    sc__free(prog->exprs);
    sc__free(prog);
}

/* Compile exprs[0..n) (not kept beyond the context's life: they are
 * interned).  Errors: SC_ERR_INVALID (a NULL expression), SC_ERR_NOMEM.
 * Time: linear in the distinct nodes of all the expressions. */
sc_status sc_prog_new(sc_ctx *ctx, size_t n, sc_expr *const *exprs,
                      sc_prog **out, sc_error *err)
{
    comp c;
    sc_prog *p = NULL;
    bool *gmp_only = NULL;
    size_t i;

    *out = NULL;
    if (!ctx || (n && !exprs))
        return sc__error_set(err, SC_ERR_INVALID, "NULL argument");
    for (i = 0; i < n; i++)
        if (!exprs[i])
            return sc__error_set(err, SC_ERR_INVALID,
                                 "NULL expression at position %zu", i);
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.regs = sc__memo_new();
    c.big = sc__memo_new();
    c.input_of = sc__memo_new();
    p = sc__calloc(1, sizeof *p);
    gmp_only = sc__calloc(n ? n : 1, sizeof *gmp_only);
    if (!c.regs || !c.big || !c.input_of || !p || !gmp_only)
        goto nomem;
    p->ctx = ctx;
    p->nexprs = n;
    p->exprs = sc__malloc((n ? n : 1) * sizeof *p->exprs);
    if (!p->exprs)
        goto nomem;
    if (n)
        memcpy(p->exprs, exprs, n * sizeof *exprs);

    for (i = 0; i < n; i++)
        gmp_only[i] = prepass(&c, exprs[i]);
    if (c.failed)
        goto nomem;
    if (c.nsyms)
        qsort(c.syms, c.nsyms, sizeof *c.syms, cmp_sym);
    for (i = 0; i < c.nsyms; i++)
        if (!sc__memo_put(c.input_of, c.syms[i], i))
            goto nomem;

    for (i = 0; i < n && !c.failed; i++) {
        if (gmp_only[i]) {
            emit(&c, OP_GMP, 0, 0, (uint32_t)i, 0);
            continue;
        }
        compile_expr(&c, exprs[i]);
        if (c.failed)
            break;
        emit(&c, OP_OUT, 0, c.vals[--c.nvals], (uint32_t)i, 0);
    }
    emit(&c, OP_END, 0, 0, 0, 0);
    if (c.failed || !allocate(&c, &p->nregs))
        goto nomem;

    p->code = c.code;
    p->ncode = c.ncode;
    c.code = NULL;
    p->inputs = c.syms;
    p->ninputs = c.nsyms;
    c.syms = NULL;
    comp_free(&c);
    sc__free(gmp_only);
    *out = p;
    return SC_OK;

nomem:
    comp_free(&c);
    sc__free(gmp_only);
    sc_prog_free(p);
    return sc__error_nomem(err);
}

size_t sc_prog_input_count(const sc_prog *prog) { return prog->ninputs; }

sc_expr *sc_prog_input(const sc_prog *prog, size_t i)
{
    return i < prog->ninputs ? prog->inputs[i] : NULL;
}

size_t sc_prog_output_count(const sc_prog *prog) { return prog->nexprs; }

/* ---- Evaluation ---------------------------------------------------------- */

/* The exact evaluation of outputs from..end (in order), for the slow
 * path.  In first-false mode (stop non-NULL) it stops at the first false
 * output and stores its index in *stop (left alone when none is). */
static sc_status slow_path(const sc_prog *p, const int64_t *inputs,
                           size_t from, size_t end, int64_t *outputs,
                           size_t *stop, sc_error *err)
{
    sc_status status = SC_OK;
    size_t k;
    mpz_t v;

    mpz_init(v); /* GMP >= 6.2: allocates nothing */
    for (k = from; k < end; k++) {
        if (stop) {
            /* A condition that divides by zero does not hold (a guard
             * whose evaluation raises fails, as in PyTorch). */
            sc_error e2;
            sc_error_init(&e2);
            status = sc__expr_eval_vals(p->ctx, p->exprs[k], p->ninputs,
                                        p->inputs, inputs, v, NULL, &e2);
            if (status == SC_ERR_DIV_ZERO) {
                status = SC_OK;
                *stop = k;
                break;
            }
            if (status != SC_OK) {
                if (err)
                    *err = e2;
                goto fail;
            }
            if (mpz_sgn(v) == 0) {
                *stop = k;
                break;
            }
        } else {
            status = sc__expr_eval_vals(p->ctx, p->exprs[k], p->ninputs,
                                        p->inputs, inputs, NULL, &outputs[k],
                                        err);
            if (status == SC_ERR_OVERFLOW)
                sc__error_set(err, status,
                              "output %zu does not fit in int64_t", k);
            SC_CHECK(status);
        }
    }
fail:
    mpz_clear(v);
    return status;
}

static bool pow64(int64_t b, uint64_t e, int64_t *out)
{
    int64_t r = 1;
    if (e == 0 || b == 1) {
        *out = 1;
        return true;
    }
    if (b == 0 || b == -1) {
        *out = (b == 0) ? 0 : (e & 1) ? -1 : 1;
        return true;
    }
    if (e >= 64)
        return false;
    for (;;) {
        if ((e & 1) && __builtin_mul_overflow(r, b, &r))
            return false;
        e >>= 1;
        if (!e)
            break;
        if (__builtin_mul_overflow(b, b, &b))
            return false;
    }
    *out = r;
    return true;
}

/* The interpreter.  first_false selects the mode of OP_OUT: store the
 * output, or stop at the first zero (its index in *index). */
static sc_status run(const sc_prog *p, const int64_t *in, int64_t *out,
                     int64_t *R, bool first_false, size_t *index,
                     sc_error *err)
{
    const insn *code = p->code, *ip = code;
    size_t seg = 0; /* the output being computed */
    int64_t t;

#if defined(__GNUC__)
    static const void *const labels[OP_COUNT_] = {
        [OP_LOAD] = &&L_LOAD, [OP_CONST] = &&L_CONST, [OP_MOV] = &&L_MOV,
        [OP_ADD] = &&L_ADD, [OP_SUB] = &&L_SUB, [OP_MUL] = &&L_MUL,
        [OP_ADDI] = &&L_ADDI, [OP_MULI] = &&L_MULI,
        [OP_ADDMULI] = &&L_ADDMULI, [OP_SQR] = &&L_SQR, [OP_POW] = &&L_POW,
        [OP_FLOORDIV] = &&L_FLOORDIV, [OP_FLOORDIVP] = &&L_FLOORDIVP,
        [OP_FLOORDIVI] = &&L_FLOORDIVI, [OP_CEILDIV] = &&L_CEILDIV,
        [OP_CEILDIVI] = &&L_CEILDIVI, [OP_MOD] = &&L_MOD,
        [OP_MODP] = &&L_MODP, [OP_MODI] = &&L_MODI, [OP_MIN] = &&L_MIN,
        [OP_MAX] = &&L_MAX, [OP_MINI] = &&L_MINI, [OP_MAXI] = &&L_MAXI,
        [OP_EQI] = &&L_EQI, [OP_NEI] = &&L_NEI, [OP_LEI] = &&L_LEI,
        [OP_GEI] = &&L_GEI, [OP_ANDJ] = &&L_ANDJ, [OP_ORJ] = &&L_ORJ,
        [OP_OUT] = &&L_OUT, [OP_GMP] = &&L_GMP, [OP_END] = &&L_END,
    };
#define DISPATCH() goto *labels[ip->op]
#define DISPATCH_JUMP() DISPATCH()
#define CASE(x) L_##x:
#define NEXT() do { ip++; DISPATCH(); } while (0)
    DISPATCH();
#else
#define CASE(x) case OP_##x:
#define NEXT() do { ip++; goto top; } while (0)
#define DISPATCH_JUMP() goto top
top:
    switch ((opcode)ip->op) {
#endif
    CASE(LOAD) R[ip->d] = in[ip->a]; NEXT();
    CASE(CONST) R[ip->d] = ip->imm; NEXT();
    CASE(MOV) R[ip->d] = R[ip->a]; NEXT();
    CASE(ADD)
        if (__builtin_add_overflow(R[ip->a], R[ip->b], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(SUB)
        if (__builtin_sub_overflow(R[ip->a], R[ip->b], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(MUL)
        if (__builtin_mul_overflow(R[ip->a], R[ip->b], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(ADDI)
        if (__builtin_add_overflow(R[ip->a], ip->imm, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(MULI)
        if (__builtin_mul_overflow(R[ip->a], ip->imm, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(ADDMULI)
        if (__builtin_mul_overflow(R[ip->b], ip->imm, &t) ||
            __builtin_add_overflow(R[ip->a], t, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(SQR)
        if (__builtin_mul_overflow(R[ip->a], R[ip->a], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(POW)
        if (!pow64(R[ip->a], (uint64_t)ip->imm, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(FLOORDIV)
        if (R[ip->b] == 0 || !sc__i64_floordiv(R[ip->a], R[ip->b], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(FLOORDIVP) {
        R[ip->d] = sc__i64_floordiv_pos(R[ip->a], ip->imm);
        NEXT();
    }
    CASE(FLOORDIVI)
        if (!sc__i64_floordiv(R[ip->a], ip->imm, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(CEILDIV)
        if (R[ip->b] == 0 || !sc__i64_ceildiv(R[ip->a], R[ip->b], &R[ip->d]))
            goto slow;
        NEXT();
    CASE(CEILDIVI)
        if (!sc__i64_ceildiv(R[ip->a], ip->imm, &R[ip->d]))
            goto slow;
        NEXT();
    CASE(MOD)
        if (R[ip->b] == 0)
            goto slow;
        R[ip->d] = sc__i64_mod(R[ip->a], R[ip->b]);
        NEXT();
    CASE(MODP) {
        R[ip->d] = sc__i64_mod_pos(R[ip->a], ip->imm);
        NEXT();
    }
    CASE(MODI) R[ip->d] = sc__i64_mod(R[ip->a], ip->imm); NEXT();
    CASE(MIN)
        R[ip->d] = R[ip->a] < R[ip->b] ? R[ip->a] : R[ip->b];
        NEXT();
    CASE(MAX)
        R[ip->d] = R[ip->a] > R[ip->b] ? R[ip->a] : R[ip->b];
        NEXT();
    CASE(MINI)
        R[ip->d] = R[ip->a] < ip->imm ? R[ip->a] : ip->imm;
        NEXT();
    CASE(MAXI)
        R[ip->d] = R[ip->a] > ip->imm ? R[ip->a] : ip->imm;
        NEXT();
    CASE(EQI) R[ip->d] = R[ip->a] == ip->imm; NEXT();
    CASE(NEI) R[ip->d] = R[ip->a] != ip->imm; NEXT();
    CASE(LEI) R[ip->d] = R[ip->a] <= ip->imm; NEXT();
    CASE(GEI) R[ip->d] = R[ip->a] >= ip->imm; NEXT();
    CASE(ANDJ)
        if (!R[ip->a]) {
            R[ip->d] = 0;
            ip = code + ip->b;
            DISPATCH_JUMP();
        }
        NEXT();
    CASE(ORJ)
        if (R[ip->a]) {
            R[ip->d] = 1;
            ip = code + ip->b;
            DISPATCH_JUMP();
        }
        NEXT();
    CASE(OUT)
        if (first_false) {
            if (!R[ip->a]) {
                *index = ip->b;
                return SC_OK;
            }
        } else {
            out[ip->b] = R[ip->a];
        }
        seg = (size_t)ip->b + 1;
        NEXT();
    CASE(GMP) {
        size_t stop = SIZE_MAX;
        SC_TRY(slow_path(p, in, ip->b, (size_t)ip->b + 1, out,
                         first_false ? &stop : NULL, err));
        if (stop != SIZE_MAX) {
            *index = stop;
            return SC_OK;
        }
        seg = (size_t)ip->b + 1;
        NEXT();
    }
    CASE(END)
        if (first_false)
            *index = p->nexprs;
        return SC_OK;
#if !defined(__GNUC__)
    default:
        return sc__error_set(err, SC_ERR_INTERNAL, "bad instruction");
    }
#endif
slow: {
        size_t stop = SIZE_MAX;
        SC_TRY(slow_path(p, in, seg, p->nexprs, out,
                         first_false ? &stop : NULL, err));
        if (first_false)
            *index = stop == SIZE_MAX ? p->nexprs : stop;
        return SC_OK;
    }
#undef CASE
#undef NEXT
#undef DISPATCH_JUMP
#if defined(__GNUC__)
#undef DISPATCH
#endif
}

/* Evaluate every output; no allocation unless the program needs more
 * than LOCAL_REGS registers or falls back to exact evaluation.  Errors:
 * SC_ERR_DIV_ZERO, SC_ERR_OVERFLOW (an output beyond int64_t),
 * SC_ERR_LIMIT, SC_ERR_NOMEM (slow path only). */
sc_status sc_prog_eval(const sc_prog *prog, const int64_t *inputs,
                       int64_t *outputs, sc_error *err)
{
    int64_t local[LOCAL_REGS], *R = local;
    sc_status st;

    if (SC__UNLIKELY(prog->nregs > LOCAL_REGS)) {
        R = sc__malloc(prog->nregs * sizeof *R);
        if (!R)
            return sc__error_nomem(err);
    }
    st = run(prog, inputs, outputs, R, false, NULL, err);
    if (R != local)
        sc__free(R);
    return st;
}

/* Evaluate the outputs in order and stop at the first that is 0 (false)
 * or divides by zero: its index in *index, or the number of outputs when
 * none is.  Outputs after it are not evaluated (nor their errors
 * raised). */
sc_status sc_prog_first_false(const sc_prog *prog, const int64_t *inputs,
                              size_t *index, sc_error *err)
{
    int64_t local[LOCAL_REGS], *R = local;
    sc_status st;

    if (SC__UNLIKELY(prog->nregs > LOCAL_REGS)) {
        R = sc__malloc(prog->nregs * sizeof *R);
        if (!R)
            return sc__error_nomem(err);
    }
    st = run(prog, inputs, NULL, R, true, index, err);
    if (R != local)
        sc__free(R);
    return st;
}
