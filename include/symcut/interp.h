/* symcut — executing graphs on the CPU: the interpreter, validation of a
 * partition (the joint graph against its forward and backward graphs, bit
 * for bit) and gradcheck (the joint graph's gradients against finite
 * differences).  Tensors are those of <symcut/tensor.h>; doc/interp.md and
 * doc/kernels.md describe the semantics.
 */
#ifndef SYMCUT_INTERP_H
#define SYMCUT_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symcut/error.h>
#include <symcut/graph.h>
#include <symcut/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Interpreter -------------------------------------------------------
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
 * annotation (unless SC_INTERP_NO_META_CHECK).  Before anything runs,
 * sc_interp_preflight: a graph with an op without a kernel or a dtype no
 * kernel supports is SC_ERR_UNSUPPORTED, naming all of them at once.
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

/* Can every node of g run?  SC_OK, or SC_ERR_UNSUPPORTED with one
 * message naming every op without a kernel (ops not in the op table, and
 * ops the table declares with `kernel: none`: collectives, custom and
 * higher-order ops), each with its reason and first node, and every dtype
 * no kernel supports (a result's or an argument's), with its first node.
 * sc_interp_run, and so validation and gradcheck, call it before running
 * anything.  Time: linear in the graph. */
sc_status sc_interp_preflight(const sc_graph *g, sc_error *err);

/* The number of nodes of g whose result or arguments name a device other
 * than the CPU (cuda:0, ...); *first (may be NULL) gets the first such
 * device.  The kernels run such graphs on the CPU: callers say so. */
size_t sc_interp_foreign_devices(const sc_graph *g, sc_device *first);

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

/* ---- Gradcheck ---------------------------------------------------------
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
    /* Progress (NULL: none): phase "running the joint graph" (of unknown
     * length: one report), then "checking gradients", units the elements
     * checked of those to check over all primals. */
    sc_progress_fn progress;
    void *progress_user;
    /* Called once per primal, in order, as soon as its record is final
     * (index i among the primals, rec its record): a caller streams the
     * per-primal results with it.  NULL: not called. */
    void (*input_done)(void *user, size_t i, const sc_gradcheck_input *rec);
    void *input_done_user;
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

/* ---- Peak memory of forward-then-backward ------------------------------
 * See doc/interp.md, "Peak memory".
 *
 * One training step as the graphs of a partition run it: the forward graph
 * fw (primals -> its user outputs, then the saved tensors, then the saved
 * SymInts), then the backward graph bw (the saved SymInts, the saved
 * tensors, then the tangents -> gradients), sc_validate_run's convention.
 * Every value is freed after its last use, as the interpreter frees values
 * (doc/interp.md, "Memory"): a saved value lives from the node that makes
 * it until its last use in the backward, views share their base's
 * storage, bytes are counted per distinct storage.  Across the boundary
 * the forward's outputs are held; the user outputs (the loss, ...) stay
 * held until the backward ends, and so do the primals (parameters and
 * inputs, which the caller owns) unless SC_PEAK_FREE_PRIMALS.  Tangents
 * appear when the backward starts.
 *
 * sc_peak_measure runs both graphs through the interpreter on random
 * inputs; sc_peak_predict computes the same figures from the sizes alone
 * (no kernel runs), so large graphs can be scored.  They agree exactly
 * whenever the prediction is exact (report.unknown_elements == 0): the
 * interpreter allocates a fresh result just large enough for its stated
 * sizes and strides, and views, in-place results and getitem share their
 * argument's storage.  Both use the graphs' context as sc_interp_run does:
 * one pair must not be scored by two threads at once. */

enum {
    /* Free each primal after its last use (in the forward, or in the
     * backward when it is saved), as the interpreter frees the inputs of
     * one graph; by default the caller holds every primal throughout. */
    SC_PEAK_FREE_PRIMALS = 1u << 0
};

typedef struct sc_peak_options {
    uint64_t seed;          /* inputs, tangents and random ops (measure) */
    /* Sizes to run at (symbols of the graphs' context); NULL or missing
     * symbols: the hints. */
    const sc_symmap *sizes;
    int64_t int_high;       /* integer inputs in [0, int_high); <= 0: 2 */
    unsigned flags;         /* SC_PEAK_* */
} sc_peak_options;

/* seed 0, no sizes, int_high 2, no flags. */
void sc_peak_options_init(sc_peak_options *opts);

typedef struct sc_peak_report {
    /* The most bytes held at once over the step: the larger of the two
     * phases' peaks. */
    uint64_t peak_bytes;
    bool peak_in_backward;      /* where peak_bytes is reached */
    sc_node_id peak_node;       /* a node of fw or bw (peak_in_backward) */
    /* The forward's peak (the held primals included). */
    uint64_t forward_peak_bytes;
    /* The backward's peak, including what the forward left held (user
     * outputs, primals) and the tangents while they live. */
    uint64_t backward_peak_bytes;
    /* Held between the two graphs: the forward's outputs (user outputs
     * and saved values) and the held primals, each storage once. */
    uint64_t boundary_bytes;
    /* The saved tensors' storages, each once (a saved view counts its
     * base's storage). */
    uint64_t saved_bytes;
    /* sc_peak_predict: tuple elements no getitem node reads, whose size
     * the graph does not say: counted as 0 bytes, so the figures are then
     * lower bounds.  0 from sc_peak_measure. */
    size_t unknown_elements;
} sc_peak_report;

/* Measure: draw random inputs for fw's placeholders and bw's tangents at
 * opts->sizes or the hints (sc_interp_random_inputs, seed opts->seed), run
 * fw, hand its saved values and the tangents to bw, run bw.  fw and bw
 * must share one context; bw's placeholders whose names start with
 * "tangents" are the tangents, the others the saved values.  opts may be
 * NULL.  Errors: SC_ERR_INVALID (graphs that do not fit together, named),
 * SC_ERR_UNBOUND (a size without a value), the interpreter's errors (the
 * failing graph named), SC_ERR_NOMEM.  Time: one run of each graph. */
sc_status sc_peak_measure(const sc_graph *fw, const sc_graph *bw,
                          const sc_peak_options *opts,
                          sc_peak_report *report, sc_error *err);

/* Predict the same figures without running anything: sizes and strides
 * from the annotations, every symbol bound by binding (a symmap of the
 * graphs' context; NULL: the hints of fw and bw), storages shared as the
 * interpreter shares them.  flags: SC_PEAK_*.  Errors: SC_ERR_INVALID (graphs that do
 * not fit together), SC_ERR_UNBOUND, SC_ERR_LIMIT (a figure beyond
 * 2^63), SC_ERR_NOMEM.  Time and memory: linear in the two graphs. */
sc_status sc_peak_predict(const sc_graph *fw, const sc_graph *bw,
                          const sc_symmap *binding, unsigned flags,
                          sc_peak_report *report, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SYMCUT_INTERP_H */
