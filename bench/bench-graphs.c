/* symcut benchmarks — the generated joint graphs (bench/bench-graphs.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "bench/bench-graphs.h"

static uint64_t rnd(gen *b)
{
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    return b->rng;
}

void die(gen *b, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", b->prog, what, b->err.message);
    exit(1);
}

static void meta2(gen *b, sc_result *r, sc_expr **dims, int64_t m,
                  int64_t n)
{
    sc_result_init(r);
    r->kind = SC_RESULT_TENSOR;
    r->tensor.dtype = SC_DTYPE_F32;
    r->tensor.ndim = 2;
    dims[0] = sc_expr_int_si(b->ctx, m);
    dims[1] = sc_expr_int_si(b->ctx, n);
    r->tensor.sizes = dims;
}

static sc_node_id ph(gen *b, const char *name, sc_role role, int64_t m,
                     int64_t n)
{
    sc_result r;
    sc_expr *dims[2];
    sc_node_id id;
    meta2(b, &r, dims, m, n);
    if (sc_graph_add_placeholder(b->g, name, role, &r, &id, &b->err) !=
        SC_OK)
        die(b, "placeholder");
    b->count++;
    return id;
}

/* A call whose result the op's shape rule infers; SC_NODE_NONE when the
 * rule rejects the arguments (the graph is unchanged). */
static sc_node_id try_call(gen *b, const char *target, sc_node_id x,
                           sc_node_id y)
{
    sc_value v[2];
    sc_node_id id;
    char name[32];
    v[0] = sc_value_node(x);
    v[1] = sc_value_node(y);
    snprintf(name, sizeof name, "n%zu", b->count);
    if (sc_graph_add_call(b->g, name, target, y == SC_NODE_NONE ? 1 : 2, v,
                          0, NULL, NULL, NULL, &id, &b->err) != SC_OK)
        return SC_NODE_NONE;
    b->count++;
    return id;
}

static sc_node_id call(gen *b, const char *target, sc_node_id x,
                       sc_node_id y, int64_t m, int64_t n)
{
    sc_node_id id = try_call(b, target, x, y);
    (void)m;
    (void)n;
    if (id == SC_NODE_NONE)
        die(b, target);
    return id;
}

#define MM "torch.ops.aten.mm.default"
#define T "torch.ops.aten.t.default"
#define ADD "torch.ops.aten.add.Tensor"
#define MUL "torch.ops.aten.mul.Tensor"
#define GELU "torch.ops.aten.gelu.default"
#define GELU_BW "torch.ops.aten.gelu_backward.default"
#define RELU "torch.ops.aten.relu.default"
#define SUM "torch.ops.aten.sum.default"
#define NONE SC_NODE_NONE

/* Blocks of h + fc2(gelu(fc1(h))) and their backward: 16 nodes each. */
void transformer(gen *b, size_t target)
{
    size_t layers = target / 16 + 1, l, np = 0;
    const int64_t B = 16, D = 64, H = 256;
    sc_node_id *w1, *w2, *hs, *as, *gs, *t1s, *t2s, *outs, x, tg, h, gy;
    char name[32];

    w1 = malloc(layers * sizeof *w1);
    w2 = malloc(layers * sizeof *w2);
    hs = malloc(layers * sizeof *hs);
    as = malloc(layers * sizeof *as);
    gs = malloc(layers * sizeof *gs);
    t1s = malloc(layers * sizeof *t1s);
    t2s = malloc(layers * sizeof *t2s);
    outs = malloc((2 * layers + 2) * sizeof *outs);
    if (!w1 || !w2 || !hs || !as || !gs || !t1s || !t2s || !outs)
        exit(1);
    for (l = 0; l < layers; l++) {
        snprintf(name, sizeof name, "primals_%zu", ++np);
        w1[l] = ph(b, name, SC_ROLE_PRIMAL, H, D);
        snprintf(name, sizeof name, "primals_%zu", ++np);
        w2[l] = ph(b, name, SC_ROLE_PRIMAL, D, H);
    }
    snprintf(name, sizeof name, "primals_%zu", ++np);
    x = ph(b, name, SC_ROLE_PRIMAL, B, D);
    tg = ph(b, "tangents_1", SC_ROLE_TANGENT, B, D);
    h = x;
    for (l = 0; l < layers; l++) {
        hs[l] = h;
        t1s[l] = call(b, T, w1[l], NONE, D, H);
        as[l] = call(b, MM, h, t1s[l], B, H);
        gs[l] = call(b, GELU, as[l], NONE, B, H);
        t2s[l] = call(b, T, w2[l], NONE, H, D);
        h = call(b, ADD, h, call(b, MM, gs[l], t2s[l], B, D), B, D);
    }
    gy = tg;
    for (l = layers; l-- > 0;) {
        sc_node_id dg, dw2, da, dh, dw1;
        dg = call(b, MM, gy, call(b, T, t2s[l], NONE, D, H), B, H);
        dw2 = call(b, MM, call(b, T, gy, NONE, D, B), gs[l], D, H);
        da = call(b, GELU_BW, dg, as[l], B, H);
        dh = call(b, MM, da, call(b, T, t1s[l], NONE, H, D), B, D);
        dw1 = call(b, MM, call(b, T, da, NONE, H, B), hs[l], H, D);
        outs[1 + 2 * l] = call(b, T, dw1, NONE, H, D);
        outs[2 + 2 * l] = call(b, T, dw2, NONE, D, H);
        gy = call(b, ADD, gy, dh, B, D);
    }
    outs[0] = h;
    outs[1 + 2 * layers] = gy;
    if (sc_graph_set_outputs(b->g, 2 * layers + 2, outs, 1, &b->err) !=
            SC_OK ||
        sc_graph_finish(b->g, &b->err) != SC_OK)
        die(b, "finish");
    free(w1);
    free(w2);
    free(hs);
    free(as);
    free(gs);
    free(t1s);
    free(t2s);
    free(outs);
}

/* A random DAG: 60% forward nodes reading recent forward values, 40%
 * backward nodes combining the backward chain with forward values. */
void random_dag(gen *b, size_t target)
{
    const size_t np = 16, window = 64;
    size_t nf = target * 6 / 10, nbw = target - nf - np - 1, i;
    sc_node_id *fw = malloc((nf + np) * sizeof *fw), *outs, tg, cur;
    static const char *const ops[] = {ADD, MUL, RELU, GELU, MM, SUM, ADD,
                                      MUL};
    char name[32];
    size_t nfw = 0;

    outs = malloc((np + 1) * sizeof *outs);
    if (!fw || !outs)
        exit(1);
    for (i = 0; i < np; i++) {
        snprintf(name, sizeof name, "primals_%zu", i + 1);
        fw[nfw++] = ph(b, name, SC_ROLE_PRIMAL, 32, 32);
    }
    tg = ph(b, "tangents_1", SC_ROLE_TANGENT, 32, 32);
    for (i = 0; i < nf; i++) {
        int k = (int)(rnd(b) % 8);
        sc_node_id a = fw[nfw - 1 - rnd(b) % (nfw < window ? nfw : window)];
        sc_node_id c = fw[nfw - 1 - rnd(b) % (nfw < window ? nfw : window)];
        bool unary = k == 2 || k == 3 || k == 5;
        sc_node_id id = try_call(b, ops[k], a, unary ? NONE : c);
        if (id == SC_NODE_NONE)
            id = call(b, ADD, a, c, 0, 0);
        fw[nfw++] = id;
    }
    cur = tg;
    for (i = 0; i < nbw; i++) {
        sc_node_id f = fw[rnd(b) % nfw];
        cur = call(b, (rnd(b) & 1) ? MUL : ADD, cur, f, 32, 32);
    }
    outs[0] = fw[nfw - 1];
    for (i = 0; i < np; i++)
        outs[1 + i] = cur;
    if (sc_graph_set_outputs(b->g, np + 1, outs, 1, &b->err) != SC_OK ||
        sc_graph_finish(b->g, &b->err) != SC_OK)
        die(b, "finish");
    free(fw);
    free(outs);
}
