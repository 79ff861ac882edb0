/* symcut tests — the generated op table, its lookups and argument binding
 * (graph/ops.c), without the rest of the library.  Table-driven; prints
 * every failed check and exits non-zero if any failed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/ops.h"

static int failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            failures++;                                                      \
        }                                                                    \
    } while (0)

#define CHECK_MSG(cond, ...)                                                 \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* Every aten op that the example joint graphs of PyTorch 1.13 call. */
static const char *const example_ops[] = {
    "_log_softmax.default", "_log_softmax_backward_data.default",
    "_reshape_alias.default", "_softmax.default",
    "_softmax_backward_data.default", "_unsafe_view.default",
    "add.Tensor", "addmm.default", "bernoulli_.float", "bmm.default",
    "cat.default", "clone.default", "convolution.default",
    "convolution_backward.default", "detach.default", "div.Scalar",
    "div.Tensor", "embedding.default", "embedding_dense_backward.default",
    "empty_like.default", "expand.default", "gelu.default",
    "gelu_backward.default", "max_pool2d_with_indices.default",
    "max_pool2d_with_indices_backward.default", "mm.default", "mul.Tensor",
    "native_batch_norm.default", "native_batch_norm_backward.default",
    "native_layer_norm.default", "native_layer_norm_backward.default",
    "nll_loss_backward.default", "nll_loss_forward.default", "relu.default",
    "select.int", "sigmoid.default", "sigmoid_backward.default",
    "split.Tensor", "stack.default", "sum.default", "sum.dim_IntList",
    "sym_size.int", "t.default", "tanh.default", "tanh_backward.default",
    "threshold_backward.default", "transpose.int", "unbind.int",
    "unsafe_split.Tensor", "view.default", "zeros.default",
};

static void test_table(void)
{
    for (int i = 0; i < SC_OP_COUNT_; i++) {
        const sc__op_info *info = sc__op_get((sc__op)i);
        CHECK_MSG(sc__op_find(info->dotted) == (sc__op)i, "%s", info->dotted);
        CHECK(info->npositional <= info->nargs);
        CHECK(info->nargs <= SC_OP_MAX_ARGS_);
        CHECK(info->nrets <= SC_OP_MAX_RETS_);
        CHECK((unsigned)info->cls < SC_CLASS_COUNT_);
        CHECK((unsigned)info->shape < SC_SHAPE_RULE_COUNT_);
        CHECK(info->kernel >= SC_KERNEL_NONE_ && info->kernel < SC_KERNEL_COUNT_);
        CHECK((info->kernel == SC_KERNEL_NONE_) ==
              (info->no_kernel_reason != NULL));
        CHECK(info->line > 0);
        for (int a = 0; a < info->nargs; a++) {
            CHECK(sc__op_arg_index((sc__op)i, info->args[a].name) == a);
            CHECK(info->args[a].kwarg_only == (a >= info->npositional));
            CHECK((info->args[a].def.kind == SC_DEF_ABSENT) ==
                  (info->args[a].def.text == NULL));
        }
        for (int m = 0; m < info->nmutates; m++)
            CHECK(info->args[info->mutates[m]].mutated);
    }
    for (int i = 1; i < SC_OP_COUNT_; i++)
        CHECK(strcmp(sc__op_names_sorted[i - 1].dotted,
                     sc__op_names_sorted[i].dotted) < 0);
    for (size_t i = 0; i < sizeof example_ops / sizeof *example_ops; i++)
        CHECK_MSG(sc__op_find(example_ops[i]) != SC_OP_INVALID_, "%s missing",
                  example_ops[i]);
    CHECK(sc__shape_rule_names[SC_SHAPE_RULE_COUNT_] == NULL);
    CHECK(sc__kernel_names[SC_KERNEL_COUNT_] == NULL);
    CHECK(sc__flops_formula_names[SC_FLOPS_COUNT_] == NULL);
    CHECK(strcmp(sc__shape_rule_names[SC_SHAPE_MM], "mm") == 0);
}

static void test_find(void)
{
    CHECK(sc__op_find("mm.default") == SC_OP_MM);
    CHECK(sc__op_find("add.Tensor") == SC_OP_ADD_TENSOR);
    CHECK(sc__op_find("sum.dim_IntList") == SC_OP_SUM_DIM_INTLIST);
    CHECK(sc__op_find("split.Tensor") == SC_OP_SPLIT_TENSOR);
    CHECK(sc__op_find("bernoulli_.float") == SC_OP_BERNOULLI__FLOAT);
    CHECK(sc__op_find("mm") == SC_OP_INVALID_);
    CHECK(sc__op_find("mm.defaul") == SC_OP_INVALID_);
    CHECK(sc__op_find("mm.defaultx") == SC_OP_INVALID_);
    CHECK(sc__op_find("aten::mm") == SC_OP_INVALID_);
    CHECK(sc__op_find("") == SC_OP_INVALID_);
    CHECK(sc__op_find(NULL) == SC_OP_INVALID_);
    /* a slice of a longer line */
    const char *line = "torch.ops.aten.add.Tensor(x, y)";
    CHECK(sc__op_findn(line + 15, 10) == SC_OP_ADD_TENSOR);
    CHECK(sc__op_findn(line + 15, 9) == SC_OP_INVALID_);

    CHECK(sc__op_find_python("*", 2) == SC_OP_SYM_MUL);
    CHECK(sc__op_find_python("-", 2) == SC_OP_SYM_SUB);
    CHECK(sc__op_find_python("-", 1) == SC_OP_SYM_NEG);
    CHECK(sc__op_find_python("//", 2) == SC_OP_SYM_FLOORDIV);
    CHECK(sc__op_find_python("%", 2) == SC_OP_SYM_MOD);
    CHECK(sc__op_find_python("[]", 2) == SC_OP_GETITEM);
    CHECK(sc__op_find_python("*", 1) == SC_OP_INVALID_);
    CHECK(sc__op_find_python_target("operator.getitem") == SC_OP_GETITEM);
    CHECK(sc__op_find_python_target("operator.mul") == SC_OP_SYM_MUL);
    CHECK(sc__op_find_python_target("operator.truediv") == SC_OP_INVALID_);

    CHECK(strcmp(sc__op_get(SC_OP_MM)->qualified, "aten::mm") == 0);
    CHECK(strcmp(sc__op_get(SC_OP_SPLIT_TENSOR)->qualified,
                 "aten::split.Tensor") == 0);
    CHECK(strcmp(sc__op_get(SC_OP_SYM_MUL)->ns, "python") == 0);
    CHECK(strcmp(sc__op_class_name(SC_CLASS_COMPUTE_INTENSIVE),
                 "compute_intensive") == 0);
    CHECK(strcmp(sc__type_base_name(SC_TYPE_SCALAR_TYPE), "ScalarType") == 0);
}

/* The parsed schemas of a few ops, field by field. */
static void test_schemas(void)
{
    const sc__op_info *s = sc__op_get(SC_OP_SPLIT_TENSOR);
    CHECK(s->nargs == 3 && s->nrets == 1 && !s->returns_tuple && s->is_view);
    CHECK(strcmp(s->args[0].alias.set, "a") == 0 &&
          s->args[0].alias.to_wildcard && !s->args[0].alias.is_write);
    CHECK(s->args[1].type.base == SC_TYPE_SYMINT);
    CHECK(s->args[2].def.kind == SC_DEF_INT && s->args[2].def.i == 0);
    CHECK(s->rets[0].type.is_list && s->rets[0].type.base == SC_TYPE_TENSOR &&
          strcmp(s->rets[0].alias.set, "a") == 0);

    const sc__op_info *ln = sc__op_get(SC_OP_NATIVE_LAYER_NORM);
    CHECK(ln->nrets == 3 && ln->returns_tuple && !ln->is_view);
    CHECK(ln->args[1].type.base == SC_TYPE_SYMINT && ln->args[1].type.is_list &&
          ln->args[1].type.list_size == 0);
    CHECK(ln->args[2].type.optional && ln->args[2].type.base == SC_TYPE_TENSOR);
    CHECK(ln->cls == SC_CLASS_COMPUTE_INTENSIVE);

    const sc__op_info *b = sc__op_get(SC_OP_BERNOULLI__FLOAT);
    CHECK(b->is_inplace && b->cls == SC_CLASS_RANDOM && !b->functorch_random);
    CHECK(b->nmutates == 1 && b->mutates[0] == 0 && b->args[0].alias.is_write);
    CHECK(b->args[1].def.kind == SC_DEF_FLOAT && b->args[1].def.f == 0.5);
    CHECK(b->args[2].kwarg_only && b->args[2].type.base == SC_TYPE_GENERATOR &&
          b->args[2].type.optional && b->args[2].def.kind == SC_DEF_NONE);
    CHECK(b->rets[0].alias.is_write);

    const sc__op_info *bn = sc__op_get(SC_OP_NATIVE_BATCH_NORM);
    CHECK(bn->nmutates == 2 && bn->args[3].mutated && bn->args[4].mutated &&
          !bn->args[0].mutated);

    const sc__op_info *mp = sc__op_get(SC_OP_MAX_POOL2D_WITH_INDICES);
    CHECK(mp->args[1].type.list_size == 2);
    CHECK(mp->args[2].def.kind == SC_DEF_INT_LIST && mp->args[2].def.n == 0);
    CHECK(mp->args[3].def.kind == SC_DEF_INT_LIST && mp->args[3].def.expanded &&
          mp->args[3].def.n == 2 && mp->args[3].def.ints[0] == 0 &&
          mp->args[3].def.ints[1] == 0);
    CHECK(mp->args[4].def.ints[1] == 1 && mp->args[5].def.kind == SC_DEF_BOOL);

    const sc__op_info *sd = sc__op_get(SC_OP_SUM_DIM_INTLIST);
    CHECK(sd->args[1].type.is_list && sd->args[1].type.list_size == 1 &&
          sd->args[1].type.optional && !sd->args[1].type.elem_optional);
    CHECK(sd->args[3].def.kind == SC_DEF_NONE && sd->args[3].kwarg_only);

    const sc__op_info *g = sc__op_get(SC_OP_GELU);
    CHECK(g->args[1].def.kind == SC_DEF_STR &&
          strcmp(g->args[1].def.s, "none") == 0 &&
          strcmp(g->args[1].def.text, "'none'") == 0);

    const sc__op_info *cb = sc__op_get(SC_OP_CONVOLUTION_BACKWARD);
    CHECK(cb->args[3].type.is_list && cb->args[3].type.optional);
    CHECK(cb->args[10].type.base == SC_TYPE_BOOL &&
          cb->args[10].type.list_size == 3);

    const sc__op_info *nl = sc__op_get(SC_OP_NLL_LOSS_FORWARD);
    CHECK(strcmp(nl->rets[0].name, "output") == 0 &&
          strcmp(nl->rets[1].name, "total_weight") == 0);

    const sc__op_info *ss = sc__op_get(SC_OP_SYM_SIZE_INT);
    CHECK(ss->rets[0].type.base == SC_TYPE_SYMINT &&
          ss->cls == SC_CLASS_SYMBOLIC);
}

/* 1.13's random_ops list, as the partitioner reads it (its recomputable
 * list is by packet name, in partition/classify.c). */
static void test_random_flags(void)
{
    CHECK(sc__op_get(SC_OP_NATIVE_DROPOUT)->functorch_random);
    CHECK(sc__op_get(SC_OP_RAND_LIKE)->functorch_random);
}

/* ---- Binding ---------------------------------------------------------------- */

/* Opaque values: the binder only copies pointers. */
static const int v[8];
#define V(i) ((const void *)&v[i])

static void test_bind_ok(void)
{
    sc__bound_arg b[SC_OP_MAX_ARGS_];
    sc_error err;

    /* addmm(t, x, w): beta and alpha default */
    const void *pos3[] = {V(0), V(1), V(2)};
    sc_error_init(&err);
    CHECK(sc__op_bind(SC_OP_ADDMM, 3, pos3, 0, NULL, NULL, b, &err) == SC_OK);
    CHECK(b[0].source == SC_ARG_POSITIONAL && b[0].value == V(0) &&
          b[0].index == 0);
    CHECK(b[2].value == V(2) && b[2].index == 2);
    CHECK(b[3].source == SC_ARG_DEFAULT && b[3].value == NULL &&
          b[3].index == -1 && b[3].def->kind == SC_DEF_INT && b[3].def->i == 1);

    /* addmm(t, x, w, alpha = a): a keyword-only argument by keyword */
    const char *kw[] = {"alpha"};
    const void *kwv[] = {V(5)};
    CHECK(sc__op_bind(SC_OP_ADDMM, 3, pos3, 1, kw, kwv, b, &err) == SC_OK);
    CHECK(b[4].source == SC_ARG_KEYWORD && b[4].value == V(5) &&
          b[4].index == 0);
    CHECK(b[3].source == SC_ARG_DEFAULT);

    /* clone(x, memory_format = torch.contiguous_format) */
    const char *kwmf[] = {"memory_format"};
    CHECK(sc__op_bind(SC_OP_CLONE, 1, pos3, 1, kwmf, kwv, b, &err) == SC_OK);
    CHECK(b[1].source == SC_ARG_KEYWORD);

    /* a positional-or-keyword argument passed by keyword:
     * sum.dim_IntList(x, dim = [1], keepdim = True) */
    const char *kwsum[] = {"keepdim", "dim"};
    const void *kwsumv[] = {V(3), V(4)};
    CHECK(sc__op_bind(SC_OP_SUM_DIM_INTLIST, 1, pos3, 2, kwsum, kwsumv, b,
                      &err) == SC_OK);
    CHECK(b[1].value == V(4) && b[1].index == 1 && b[2].value == V(3) &&
          b[3].source == SC_ARG_DEFAULT);

    /* zeros([1, 4, 64], dtype = ..., device = ..., pin_memory = False) */
    const char *kwz[] = {"dtype", "device", "pin_memory"};
    const void *kwzv[] = {V(1), V(2), V(3)};
    CHECK(sc__op_bind(SC_OP_ZEROS, 1, pos3, 3, kwz, kwzv, b, &err) == SC_OK);
    CHECK(b[2].source == SC_ARG_DEFAULT && b[2].def->kind == SC_DEF_NONE);

    /* a zero-argument-default op: sym_numel(x) */
    CHECK(sc__op_bind(SC_OP_SYM_NUMEL, 1, pos3, 0, NULL, NULL, b, &err) ==
          SC_OK);
    CHECK(err.code == SC_OK);
}

static void expect_error(sc__op op, size_t npos, size_t nkw,
                         const char *const *kwnames, const char *want)
{
    const void *pos[SC_OP_MAX_ARGS_ + 2];
    const void *kwv[4];
    sc__bound_arg b[SC_OP_MAX_ARGS_];
    sc_error err;
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++)
        pos[i] = V(i % 8);
    for (size_t i = 0; i < 4; i++)
        kwv[i] = V(i);
    b[0].source = SC_ARG_UNSET;
    b[0].value = V(7);
    sc_error_init(&err);
    sc_status st = sc__op_bind(op, npos, pos, nkw, kwnames, kwv, b, &err);
    CHECK_MSG(st == SC_ERR_TYPE, "%s: status %d", want, (int)st);
    CHECK_MSG(strcmp(err.message, want) == 0, "got \"%s\", want \"%s\"",
              err.message, want);
    CHECK(b[0].source == SC_ARG_UNSET && b[0].value == V(7)); /* untouched */
}

static void test_bind_errors(void)
{
    static const char *const kw_beta[] = {"beta"};
    static const char *const kw_bogus[] = {"bogus"};
    static const char *const kw_self[] = {"self"};
    static const char *const kw_twice[] = {"alpha", "alpha"};

    expect_error(SC_OP_MM, 3, 0, NULL,
                 "mm.default() takes 2 positional arguments but 3 were given");
    expect_error(SC_OP_ADD_TENSOR, 3, 0, NULL,
                 "add.Tensor() takes 2 positional arguments but 3 were given "
                 "(the 1 after '*' are keyword-only)");
    expect_error(SC_OP_ADD_TENSOR, 2, 1, kw_bogus,
                 "add.Tensor() got an unexpected keyword argument 'bogus'");
    expect_error(SC_OP_MUL_TENSOR, 2, 1, kw_beta,
                 "mul.Tensor() got an unexpected keyword argument 'beta'");
    expect_error(SC_OP_ADD_TENSOR, 2, 1, kw_self,
                 "add.Tensor() got multiple values for argument 'self'");
    expect_error(SC_OP_ADD_TENSOR, 2, 2, kw_twice,
                 "add.Tensor() got multiple values for argument 'alpha'");
    expect_error(SC_OP_MM, 1, 0, NULL,
                 "mm.default() missing required argument 'mat2'");
    expect_error(SC_OP_DIV_TENSOR_MODE, 2, 0, NULL,
                 "div.Tensor_mode() missing required keyword-only argument "
                 "'rounding_mode'");
    expect_error(SC_OP_SYM_NEG, 2, 0, NULL,
                 "sym_neg.default() takes 1 positional argument but 2 were "
                 "given");

    sc_error err;
    sc__bound_arg b[SC_OP_MAX_ARGS_];
    sc_error_init(&err);
    CHECK(sc__op_bind(SC_OP_COUNT_, 0, NULL, 0, NULL, NULL, b, &err) ==
          SC_ERR_INVALID);
    CHECK(sc__op_bind(SC_OP_INVALID_, 0, NULL, 0, NULL, NULL, b, NULL) ==
          SC_ERR_INVALID);
}

int main(void)
{
    test_table();
    test_find();
    test_schemas();
    test_random_flags();
    test_bind_ok();
    test_bind_errors();
    if (failures) {
        fprintf(stderr, "test-ops: %d check%s failed\n", failures,
                failures == 1 ? "" : "s");
        return 1;
    }
    printf("test-ops: %d ops, all checks passed\n", (int)SC_OP_COUNT_);
    return 0;
}
