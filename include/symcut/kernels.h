/* symcut — strided CPU tensors, dtype conversions and promotion, and the
 * NumPy .npy format.
 *
 * A tensor (sc_tensor) is a view of a reference-counted storage
 * (sc_storage): a dtype, ndim sizes and strides (in elements, non-negative
 * as in PyTorch; 0 for an expanded dimension), and a storage offset (in
 * elements).  Views (transpose, select, slice, expand, ...) are new tensor
 * objects that share the storage of their base, as in PyTorch; writing
 * through one is visible through the others.  A tensor object is owned by
 * whoever created it and freed with sc_tensor_free, which drops one
 * reference to the storage; the storage is freed with its last view.
 * Reference counts are not atomic: tensors sharing a storage must not be
 * created or freed from two threads at once.
 *
 * Supported element types: F32, F64, F16, BF16 (16-bit storage, computed in
 * f32), I64, I32, I16, I8, U8, B8 (bool, one byte 0 or 1).  Other sc_dtype
 * values (complex, float8, wide unsigned) are rejected with
 * SC_ERR_UNSUPPORTED.
 *
 * Conversions between dtypes are exact where the value is representable and
 * otherwise defined as follows (doc/kernels.md):
 *   - float -> f16 / bf16: round to nearest, ties to even, with subnormals,
 *     overflow to infinity, NaN kept NaN (quiet); f64 -> f16/bf16 goes
 *     through f32, as PyTorch does.
 *   - float -> integer: truncation toward zero; NaN gives 0; a value beyond
 *     the int64 range saturates to INT64_MIN / INT64_MAX; the int64 value is
 *     then wrapped (two's complement) to a narrower integer type.
 *   - integer -> narrower integer: wrapped (two's complement), as C casts
 *     on every platform PyTorch supports.
 *   - anything -> bool: value != 0 (NaN is true).  bool -> number: 0 or 1.
 */
#ifndef SYMCUT_KERNELS_H
#define SYMCUT_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of dimensions of a tensor. */
#define SC_TENSOR_MAX_DIMS 16

/* A reference-counted byte buffer.  bytes is 64-byte aligned (NULL when
 * size is 0). */
typedef struct sc_storage {
    unsigned char *bytes;
    size_t size;     /* in bytes */
    size_t refcount;
} sc_storage;

/* A strided view of a storage.  Read the fields freely; change them only
 * through the functions below. */
typedef struct sc_tensor {
    sc_dtype dtype;
    size_t ndim;
    int64_t sizes[SC_TENSOR_MAX_DIMS];
    int64_t strides[SC_TENSOR_MAX_DIMS]; /* in elements, >= 0 */
    int64_t offset;                      /* in elements */
    sc_storage *storage;                 /* one reference held */
} sc_tensor;

/* ---- dtypes ------------------------------------------------------------ */

/* Can tensors of this dtype be created and computed with? */
bool sc_tensor_dtype_supported(sc_dtype dtype);

/* PyTorch's promote_types for the supported dtypes: bool < integers <
 * floats; f16 with bf16 gives f32; u8 with i8 gives i16.  Returns false (and
 * leaves *out) for an unsupported dtype. */
bool sc_dtype_promote(sc_dtype a, sc_dtype b, sc_dtype *out);

/* One operand of a type-promotion question (PyTorch's result_type). */
typedef enum sc_operand_kind {
    SC_OPERAND_TENSOR,      /* a tensor with ndim >= 1 */
    SC_OPERAND_ZERO_DIM,    /* a 0-d tensor */
    SC_OPERAND_INT,         /* a Python int (Scalar) */
    SC_OPERAND_FLOAT,       /* a Python float (Scalar) */
    SC_OPERAND_BOOL         /* a Python bool (Scalar) */
} sc_operand_kind;

typedef struct sc_operand {
    sc_operand_kind kind;
    sc_dtype dtype; /* TENSOR, ZERO_DIM only */
} sc_operand;

/* PyTorch's result_type over n operands: dimensioned tensors take
 * precedence over 0-d tensors, which take precedence over Python scalars,
 * unless a lower-priority operand is of a higher category (bool < integer <
 * floating); a Python float then gives the default dtype f32 and a Python
 * int gives i64.  SC_ERR_UNSUPPORTED for an unsupported dtype,
 * SC_ERR_INVALID for n == 0. */
sc_status sc_dtype_result_type(size_t n, const sc_operand *ops, sc_dtype *out,
                               sc_error *err);

/* IEEE binary16 and bfloat16 conversions (round to nearest even). */
uint16_t sc_f32_to_f16(float f);
float sc_f16_to_f32(uint16_t h);
uint16_t sc_f32_to_bf16(float f);
float sc_bf16_to_f32(uint16_t b);

/* ---- Creation and destruction ------------------------------------------ */

/* A new contiguous, zero-filled tensor of ndim sizes (each >= 0).
 * Errors: SC_ERR_UNSUPPORTED (dtype), SC_ERR_INVALID (ndim, negative size),
 * SC_ERR_OVERFLOW (byte size beyond size_t), SC_ERR_NOMEM. */
sc_status sc_tensor_new(sc_dtype dtype, size_t ndim, const int64_t *sizes,
                        sc_tensor **out, sc_error *err);

/* A new tensor with the given sizes and strides over a fresh zero-filled
 * storage just large enough for them (PyTorch's empty_strided). */
sc_status sc_tensor_new_strided(sc_dtype dtype, size_t ndim,
                                const int64_t *sizes, const int64_t *strides,
                                sc_tensor **out, sc_error *err);

/* A 0-d tensor holding value (converted as above). */
sc_status sc_tensor_new_scalar(sc_dtype dtype, double value, sc_tensor **out,
                               sc_error *err);

/* Free a tensor object and drop its storage reference.  NULL is a no-op. */
void sc_tensor_free(sc_tensor *t);

/* A new tensor object for the same view (one more storage reference). */
sc_status sc_tensor_alias(const sc_tensor *t, sc_tensor **out, sc_error *err);

/* A contiguous copy of t (its own storage).  O(numel). */
sc_status sc_tensor_clone(const sc_tensor *t, sc_tensor **out, sc_error *err);

/* A contiguous copy of t converted to dtype. */
sc_status sc_tensor_to_dtype(const sc_tensor *t, sc_dtype dtype,
                             sc_tensor **out, sc_error *err);

/* Copy src into dst (dst's view; src broadcast to dst's shape and
 * converted to dst's dtype).  If they overlap, src is read fully first. */
sc_status sc_tensor_copy(sc_tensor *dst, const sc_tensor *src, sc_error *err);

/* Fill every element of t with value (converted). */
sc_status sc_tensor_fill(sc_tensor *t, double value, sc_error *err);

/* ---- Queries ------------------------------------------------------------ */

/* Number of elements (product of sizes; 1 for a 0-d tensor). */
size_t sc_tensor_numel(const sc_tensor *t);
/* numel * itemsize. */
size_t sc_tensor_nbytes(const sc_tensor *t);
/* Row-major dense (strides of size-1 dimensions are ignored, as in
 * PyTorch). */
bool sc_tensor_is_contiguous(const sc_tensor *t);
/* Pointer to element (0, ..., 0). */
void *sc_tensor_data(const sc_tensor *t);
/* Are the two tensors' shapes equal? */
bool sc_tensor_same_shape(const sc_tensor *a, const sc_tensor *b);

/* Element access for tests and tools.  idx has ndim entries, each in
 * range (SC_ERR_INVALID otherwise).  Values are converted as above. */
sc_status sc_tensor_get_double(const sc_tensor *t, const int64_t *idx,
                               double *out, sc_error *err);
sc_status sc_tensor_set_double(sc_tensor *t, const int64_t *idx, double v,
                               sc_error *err);
sc_status sc_tensor_get_int64(const sc_tensor *t, const int64_t *idx,
                              int64_t *out, sc_error *err);
sc_status sc_tensor_set_int64(sc_tensor *t, const int64_t *idx, int64_t v,
                              sc_error *err);
/* The element at row-major position i (0 <= i < numel; no check). */
double sc_tensor_item_double(const sc_tensor *t, size_t i);
int64_t sc_tensor_item_int64(const sc_tensor *t, size_t i);

/* ---- Views (share the storage; O(ndim)) ------------------------------------
 * Dimensions may be negative (counted from the end).  Errors:
 * SC_ERR_INVALID for an out-of-range dimension or index, SC_ERR_SHAPE for
 * sizes that do not fit. */

/* Sizes, strides and offset given explicitly; the view must lie within the
 * storage. */
sc_status sc_tensor_view_as_strided(const sc_tensor *t, size_t ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides, int64_t offset,
                                    sc_tensor **out, sc_error *err);
sc_status sc_tensor_transpose(const sc_tensor *t, int64_t d0, int64_t d1,
                              sc_tensor **out, sc_error *err);
/* dims is a permutation of 0..ndim-1 (negative entries allowed). */
sc_status sc_tensor_permute(const sc_tensor *t, const int64_t *dims,
                            sc_tensor **out, sc_error *err);
/* Removes dimension dim. */
sc_status sc_tensor_select(const sc_tensor *t, int64_t dim, int64_t index,
                           sc_tensor **out, sc_error *err);
/* Python slicing t[start:end:step] along dim (step >= 1; start and end
 * clamped as Python does; INT64_MAX for "to the end"). */
sc_status sc_tensor_slice(const sc_tensor *t, int64_t dim, int64_t start,
                          int64_t end, int64_t step, sc_tensor **out,
                          sc_error *err);
/* Broadcast to sizes (-1 keeps a size; new leading dims allowed). */
sc_status sc_tensor_expand(const sc_tensor *t, size_t ndim,
                           const int64_t *sizes, sc_tensor **out,
                           sc_error *err);
sc_status sc_tensor_unsqueeze(const sc_tensor *t, int64_t dim,
                              sc_tensor **out, sc_error *err);
/* Remove dim if its size is 1 (else an alias). */
sc_status sc_tensor_squeeze_dim(const sc_tensor *t, int64_t dim,
                                sc_tensor **out, sc_error *err);
/* Remove every size-1 dimension. */
sc_status sc_tensor_squeeze(const sc_tensor *t, sc_tensor **out,
                            sc_error *err);
/* A view with new sizes (one may be -1) when the strides allow it, else
 * SC_ERR_SHAPE (PyTorch's view). */
sc_status sc_tensor_view(const sc_tensor *t, size_t ndim, const int64_t *sizes,
                         sc_tensor **out, sc_error *err);
/* A view when possible, else a contiguous copy (PyTorch's reshape). */
sc_status sc_tensor_reshape(const sc_tensor *t, size_t ndim,
                            const int64_t *sizes, sc_tensor **out,
                            sc_error *err);

/* ---- .npy files ----------------------------------------------------------
 * NumPy format versions 1.0, 2.0 and 3.0; descr '<f4' '<f8' '<f2' '<i8'
 * '<i4' '<i2' '|i1' '|u1' '|b1' (and their '>' big-endian forms, swapped on
 * read; '=' and '|' accepted where meaningful); fortran_order False or True
 * (read into a C-order tensor); any shape, including ().  Every malformed
 * input is an SC_ERR_PARSE (or SC_ERR_OVERFLOW, SC_ERR_UNSUPPORTED,
 * SC_ERR_IO) whose message gives the byte offset of the problem; the file
 * name (or `name`) is in err->file. */

/* Read the .npy bytes buf[0..len).  name (may be NULL) names the buffer in
 * errors.  *out is a new contiguous tensor on success, NULL on failure.
 * O(len). */
sc_status sc_npy_read_buffer(const void *buf, size_t len, const char *name,
                             sc_tensor **out, sc_error *err);
/* Read the .npy file at path. */
sc_status sc_npy_read(const char *path, sc_tensor **out, sc_error *err);

/* Serialize t (any strides) as NumPy 1.0 (2.0 if the header needs it),
 * little-endian, C order, into a new malloc'ed buffer (*out, *len; free
 * with free()). */
sc_status sc_npy_write_buffer(const sc_tensor *t, void **out, size_t *len,
                              sc_error *err);
/* Write t to path atomically: a temporary file in the same directory,
 * then rename.  On failure nothing is left behind and an existing file at
 * path is untouched. */
sc_status sc_npy_write(const sc_tensor *t, const char *path, sc_error *err);


/* ---- Interpreter and validation ----------------------------------------
 * (kernels/interp.c, kernels/validate.c; doc/interp.md)
 *
 * sc_interp_run executes a graph node by node through the op table's
 * kernels.  Values: a tensor node holds an sc_tensor; a SymInt node an
 * integer, handed in and out as a 0-d int64 tensor (sc_tensor_item_int64);
 * a tuple node (native_layer_norm, split, ...) its element tensors, read by
 * getitem nodes.  The graph is not modified, but its context and shape
 * environment are used (symbol constants are interned in the context): one
 * graph must not be run by two threads at once. */

/* options.boundary: the last node of the forward half (the last call node
 * on a path from the primals to a forward output). */
#define SC_INTERP_BOUNDARY_FORWARD ((sc_node_id)-2)

enum {
    /* Do not compare each node's result with its annotation (sizes,
     * dtype).  Unbacked symbols are still bound from annotations that are
     * a bare symbol. */
    SC_INTERP_NO_META_CHECK = 1u << 0
};

typedef struct sc_interp_options {
    /* Random ops draw from Philox keyed by (seed, FNV-1a 64 of the node's
     * name): a node of the same name in a joint, forward or backward graph
     * draws the same numbers. */
    uint64_t seed;
    /* A node id, SC_NODE_NONE (the default) or SC_INTERP_BOUNDARY_FORWARD:
     * stats->boundary_bytes are measured after this node ran and the
     * values it used for the last time were released. */
    sc_node_id boundary;
    /* Symbols bound before the inputs are read (the input sizes must agree
     * with them); NULL for none.  Must use the graph's context. */
    const sc_symmap *sizes;
    unsigned flags; /* SC_INTERP_* */
} sc_interp_options;

/* seed 0, boundary SC_NODE_NONE, no sizes, no flags. */
void sc_interp_options_init(sc_interp_options *opts);

typedef struct sc_interp_stats {
    /* The most bytes held at once: every distinct storage referenced by a
     * live value (inputs included until their last use), measured after
     * each node ran and before the values it used for the last time were
     * released. */
    size_t peak_bytes;
    sc_node_id peak_node;          /* the node at the peak */
    /* Held after the boundary node (0 without a boundary); the part of it
     * in the storages of the graph's inputs. */
    size_t boundary_bytes;
    size_t boundary_input_bytes;
    sc_node_id boundary_node;      /* the resolved boundary, or SC_NODE_NONE */
    size_t output_bytes;           /* distinct storages of the outputs */
    size_t kernel_calls;
} sc_interp_stats;

/* Run g on inputs[0 .. sc_graph_placeholder_count(g)), one per placeholder
 * in order (a tensor, or for a SymInt placeholder a 0-d integer tensor;
 * kept, not owned).  Ops that mutate an argument (native_batch_norm's
 * running statistics, bernoulli_) write into the caller's tensors, as
 * PyTorch does: pass copies to keep the originals.
 *
 * Checks, each an error naming what failed: every input's dtype and rank
 * against its placeholder's annotation, and its sizes (a constant must be
 * equal, a symbol is bound on its first occurrence and must be equal on
 * every other, a composite size is evaluated, or solved for its one
 * unbound symbol when linear); the shape environment's (sc_graph_env)
 * symbol ranges, guards and replacements once their symbols are bound,
 * its deferred runtime assertions once their unbacked symbols are bound
 * (from data-dependent results such as nonzero's); each result against its
 * annotation (unless SC_INTERP_NO_META_CHECK).  An op without a kernel is
 * SC_ERR_UNSUPPORTED: "node N: op X has no kernel: REASON".
 *
 * On success outputs[0 .. sc_graph_output_count(g)) hold new tensors owned
 * by the caller (free with sc_tensor_free; NULL for a None output; views
 * may share storage with the inputs) and *stats (if non-NULL) is filled.
 * On failure every output is NULL.  opts may be NULL (defaults).
 * Errors: SC_ERR_INVALID (wrong graph, no users index), SC_ERR_TYPE,
 * SC_ERR_SHAPE, SC_ERR_GUARD, SC_ERR_UNSUPPORTED, the kernels' errors
 * (prefixed with the node's name), SC_ERR_NOMEM.
 * Time: the kernels' plus O(nodes + edges); memory: the live values. */
sc_status sc_interp_run(const sc_graph *g, sc_tensor *const inputs[],
                        const sc_interp_options *opts, sc_tensor *outputs[],
                        sc_interp_stats *stats, sc_error *err);

/* The value of every symbol of g's placeholder annotations: from sizes
 * (may be NULL), else the symbol's hint (sc_graph_get_hint).  Adds them to
 * binding (the graph's context).  SC_ERR_UNBOUND naming a symbol with
 * neither. */
sc_status sc_interp_bind_sizes(const sc_graph *g, const sc_symmap *sizes,
                               sc_symmap *binding, sc_error *err);

/* New random inputs for g's placeholders (inputs[0 .. num_placeholders),
 * owned by the caller) at the sizes binding gives: floating tensors
 * uniform in [-1, 1), integer tensors uniform in [0, int_high) (int_high
 * <= 0 means 2), bool 0/1, SymInt placeholders their value as a 0-d int64
 * tensor.  Each placeholder's stream is keyed by (seed, its name), so the
 * same name draws the same values in any graph.  On failure nothing is
 * left in inputs. */
sc_status sc_interp_random_inputs(const sc_graph *g, const sc_symmap *binding,
                                  uint64_t seed, int64_t int_high,
                                  sc_tensor *inputs[], sc_error *err);

/* FNV-1a 64 of a node name: the random-op key of that node. */
uint64_t sc_interp_node_key(const char *name);

typedef enum sc_validate_kind {
    SC_VALIDATE_OK,             /* no mismatch */
    SC_VALIDATE_STRUCTURE,      /* the graphs do not fit together */
    SC_VALIDATE_RUN_ERROR,      /* the forward or backward graph failed */
    SC_VALIDATE_FORWARD_OUTPUT, /* a forward output differs */
    SC_VALIDATE_GRADIENT,       /* a gradient differs */
    SC_VALIDATE_MUTATED_INPUT,  /* an input mutated differently */
    SC_VALIDATE_SAVED_BYTES     /* saved bytes differ from the prediction */
} sc_validate_kind;

typedef struct sc_validate_options {
    uint64_t seed;              /* the inputs' draw and the random ops */
    /* The sizes to run at (symbols of the joint graph's context); NULL or
     * missing symbols: the hints. */
    const sc_symmap *sizes;
    /* Inputs of the joint graph to use instead of random ones (kept, not
     * owned, not modified: each run gets copies); NULL: random. */
    sc_tensor *const *inputs;
    int64_t int_high;           /* integer inputs in [0, int_high); <= 0: 2 */
    /* The partition's predicted bytes of the saved tensors at these
     * sizes; negative: no prediction to check. */
    int64_t predicted_saved_bytes;
} sc_validate_options;

void sc_validate_options_init(sc_validate_options *opts);

typedef struct sc_validate_report {
    bool passed;
    sc_validate_kind kind;      /* of the first failure */
    /* The first failure in one line (names the nodes, gives the errors);
     * "" when passed. */
    char message[SC_ERROR_MESSAGE_MAX];
    size_t compared;            /* values compared */
    size_t mismatches;          /* values that differ */
    /* For the first differing value: its index among the joint's outputs
     * (or the placeholder for a mutated input), the node names (in the
     * joint graph and in the forward/backward graph; "None" for None;
     * pointers into the graphs), and the largest absolute and relative
     * errors over its elements. */
    size_t index;
    const char *joint_node;
    const char *part_node;
    double max_abs_error, max_rel_error;
    /* The saved values (forward outputs beyond the joint's forward
     * outputs): how many, their tensor bytes (numel * itemsize), and the
     * prediction (negative: none). */
    size_t saved_count;
    size_t saved_bytes;
    int64_t predicted_saved_bytes;
    sc_interp_stats joint_stats, fw_stats, bw_stats;
} sc_validate_report;

/* Validate a partition of joint into fw (primals -> forward outputs, then
 * saved tensors, then saved SymInts) and bw (saved SymInts, saved tensors,
 * then tangents -> one gradient per primal, None allowed), PyTorch's (and
 * sc_partition_run's) convention: draw inputs (or take opts->inputs), run joint,
 * run fw on copies of the primals, run bw on the saved values and the
 * tangents, and compare bit for bit every forward output, every gradient
 * and every primal that a run mutated.  The three graphs share one
 * context.  Returns SC_OK when the validation ran, whatever its verdict
 * (report->passed); graphs that do not fit together and failures of fw or
 * bw are verdicts.  Errors: failures of the joint graph (bad sizes, no
 * hint), SC_ERR_NOMEM.  opts may be NULL.  Time: three runs. */
sc_status sc_validate_run(const sc_graph *joint, const sc_graph *fw,
                          const sc_graph *bw, const sc_validate_options *opts,
                          sc_validate_report *report, sc_error *err);

/* ---- Gradcheck (kernels/gradcheck.c) ----------------------------------
 * See doc/kernels.md, "Gradcheck".
 *
 * sc_gradcheck_run checks a joint graph's gradients against central finite
 * differences, in float64: the joint graph is rebuilt with every floating
 * dtype (annotations and dtype arguments: f32, f16, bf16) turned into f64,
 * inputs and tangents are drawn at random (sc_interp_random_inputs, the
 * seed of the options), the joint graph runs once for the analytic
 * gradients of F(primals) = sum_k <tangent_k, forward output k>, and for
 * each checked element x of each differentiable primal the forward part
 * of the graph runs twice for the numeric derivative
 * (F(x + eps) - F(x - eps)) / (2 eps).  An element passes when
 * |analytic - numeric| <= atol + rtol * |numeric| (a NaN fails).  Random
 * ops draw the same numbers in every run (the same seed and node names).
 * Skipped: primals whose gradient is None, non-floating primals. */

/* The default of sc_gradcheck_options.max_per_input. */
#define SC_GRADCHECK_MAX_PER_INPUT 64

/* What happened to one primal. */
typedef struct sc_gradcheck_input {
    sc_node_id node;            /* the primal's placeholder */
    /* NULL when checked, else why not ("gradient is None", "not a
     * floating-point tensor"; a static string). */
    const char *skipped;
    size_t numel;               /* elements of the primal */
    size_t checked;             /* elements compared */
    size_t failures;            /* elements beyond the tolerance */
    /* The element with the largest error relative to the tolerance
     * (worst_ratio = |a - n| / (atol + rtol |n|), infinite for a NaN; > 1
     * fails): its flat (row-major) index, analytic and numeric values. */
    size_t worst_index;
    double worst_analytic, worst_numeric, worst_abs_error, worst_ratio;
} sc_gradcheck_input;

typedef struct sc_gradcheck_options {
    double eps, atol, rtol;     /* 1e-6, 1e-5, 1e-3 (PyTorch's gradcheck) */
    uint64_t seed;              /* inputs, tangents and random ops */
    const sc_symmap *sizes;     /* NULL or missing symbols: the hints */
    int64_t int_high;           /* integer inputs in [0, int_high); <= 0: 2 */
    /* Elements checked per primal: all of a primal with at most this many,
     * else this many distinct ones drawn with the seed (sorted); 0: all.
     * Default SC_GRADCHECK_MAX_PER_INPUT.  Each costs two forward runs. */
    size_t max_per_input;
    /* NULL, or an array of sc_graph_primal_count(joint) entries that
     * receives one record per primal. */
    sc_gradcheck_input *per_input;
} sc_gradcheck_options;

/* eps 1e-6, atol 1e-5, rtol 1e-3, seed 0, no sizes, int_high 2,
 * max_per_input SC_GRADCHECK_MAX_PER_INPUT, no per_input. */
void sc_gradcheck_options_init(sc_gradcheck_options *opts);

typedef struct sc_gradcheck_report {
    bool passed;
    /* The first failing element, or a structural failure (a gradient of
     * the wrong shape), in one line; "" if passed. */
    char message[SC_ERROR_MESSAGE_MAX];
    size_t checked;             /* gradient elements compared */
    size_t failures;            /* elements beyond the tolerance */
    size_t inputs_checked;      /* primals with at least one element checked */
    size_t runs;                /* graph runs: the joint graph once, the
                                   forward once, then 2 per element */
    /* The worst element over all primals (largest worst_ratio, see
     * sc_gradcheck_input): the primal's index among the primals
     * (SIZE_MAX when nothing was checked), its flat index, the analytic
     * (joint graph) and numeric (central difference) values. */
    size_t worst_input;
    size_t worst_index;
    double worst_analytic, worst_numeric, worst_abs_error, worst_ratio;
} sc_gradcheck_report;

/* Compare the gradients the joint graph computes with central finite
 * differences of its forward outputs, in float64, for random inputs and
 * random tangents.  joint: primals, then tangents -> forward outputs, then
 * one gradient per primal (None allowed); tangent k belongs to the k-th
 * forward output that is a floating-point tensor of the tangent's shape
 * (matched in order).  The graph is not modified (its context and shape
 * environment are used, as by sc_interp_run).  opts may be NULL.
 *
 * Returns SC_OK when the check ran, whatever its verdict
 * (report->passed).  Errors: SC_ERR_INVALID (not a joint graph: outputs
 * are not forward outputs plus one per primal, tangents that match no
 * forward output), SC_ERR_UNBOUND (a size without a value), the f64
 * rebuild's and the interpreter's errors (an op without a kernel, a graph
 * that does not run at these sizes), SC_ERR_NOMEM.
 * Time: one run of the joint graph and 1 + 2 * checked runs of its
 * forward part. */
sc_status sc_gradcheck_run(const sc_graph *joint,
                           const sc_gradcheck_options *opts,
                           sc_gradcheck_report *report, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_KERNELS_H */
