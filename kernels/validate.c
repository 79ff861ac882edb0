/* symcut — validation of a partition: the joint graph against its forward
 * and backward graphs, on the same inputs, bit for bit (doc/interp.md). */
#include <config.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernels/interp.h"

void sc_validate_options_init(sc_validate_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->predicted_saved_bytes = -1;
}

/* Record a failure; only the first one sets kind and message. */
static void fail_report(sc_validate_report *rep, sc_validate_kind kind,
                        const char *fmt, ...) SC__PRINTF(3, 4);

static void fail_report(sc_validate_report *rep, sc_validate_kind kind,
                        const char *fmt, ...)
{
    va_list ap;
    if (!rep->passed)
        return;
    rep->passed = false;
    rep->kind = kind;
    va_start(ap, fmt);
    vsnprintf(rep->message, sizeof rep->message, fmt, ap);
    va_end(ap);
}

/* Compare two values bit for bit.  *same; the largest absolute and
 * relative errors and the number of differing elements when the shapes
 * and dtypes agree; *why describes a shape/dtype/None difference. */
typedef struct cmp_result {
    bool same;
    bool comparable;
    double max_abs, max_rel;
    size_t ndiff, numel;
    char why[160];
} cmp_result;

static sc_status compare(const sc_tensor *a, const sc_tensor *b,
                         cmp_result *r, sc_error *err)
{
    sc_tensor *ca = NULL, *cb = NULL;
    size_t n, i, isz;
    const unsigned char *pa, *pb;
    sc_status status = SC_OK;

    memset(r, 0, sizeof *r);
    if (!a || !b) {
        r->same = !a && !b;
        if (!r->same)
            snprintf(r->why, sizeof r->why, "%s where the joint graph has %s",
                     b ? "None" : "a tensor", a ? "a tensor" : "None");
        return SC_OK;
    }
    if (a->dtype != b->dtype) {
        snprintf(r->why, sizeof r->why, "dtype %s where the joint graph has %s",
                 sc_dtype_code(b->dtype), sc_dtype_code(a->dtype));
        return SC_OK;
    }
    if (!sc_tensor_same_shape(a, b)) {
        snprintf(r->why, sizeof r->why, "a different shape (%zu dims, numel "
                                        "%zu; the joint graph's: %zu dims, "
                                        "numel %zu)",
                 b->ndim, sc_tensor_numel(b), a->ndim, sc_tensor_numel(a));
        return SC_OK;
    }
    r->comparable = true;
    SC_CHECK(sc_tensor_clone(a, &ca, err));
    SC_CHECK(sc_tensor_clone(b, &cb, err));
    n = sc_tensor_numel(ca);
    r->numel = n;
    isz = sc_dtype_itemsize(ca->dtype);
    pa = sc_tensor_data(ca);
    pb = sc_tensor_data(cb);
    for (i = 0; i < n; i++) {
        double x, y, d, rel;
        if (memcmp(pa + i * isz, pb + i * isz, isz) == 0)
            continue;
        r->ndiff++;
        x = sc_tensor_item_double(ca, i);
        y = sc_tensor_item_double(cb, i);
        d = fabs(x - y);
        if (isnan(d))
            d = HUGE_VAL;
        rel = x != 0 ? d / fabs(x) : (d > 0 ? HUGE_VAL : 0);
        if (d > r->max_abs)
            r->max_abs = d;
        if (rel > r->max_rel)
            r->max_rel = rel;
    }
    r->same = r->ndiff == 0;
fail:
    sc_tensor_free(ca);
    sc_tensor_free(cb);
    return status;
}

static const char *out_name(const sc_graph *g, sc_node_id id)
{
    return id == SC_NODE_NONE ? "None" : sc_graph_node_name(g, id);
}

/* Compare a joint value with a partition value, updating the report. */
static sc_status check_value(sc_validate_report *rep, sc_validate_kind kind,
                             size_t index, const char *what,
                             const char *jname, const char *pname,
                             const sc_tensor *jv, const sc_tensor *pv,
                             sc_error *err)
{
    cmp_result r;
    SC_TRY(compare(jv, pv, &r, err));
    rep->compared++;
    if (r.same)
        return SC_OK;
    rep->mismatches++;
    if (!rep->passed)
        return SC_OK;
    rep->index = index;
    rep->joint_node = jname;
    rep->part_node = pname;
    rep->max_abs_error = r.max_abs;
    rep->max_rel_error = r.max_rel;
    if (!r.comparable)
        fail_report(rep, kind, "%s %zu (joint %s, partition %s): %s", what,
                    index, jname, pname, r.why);
    else
        fail_report(rep, kind,
                    "%s %zu (joint %s, partition %s): %zu of %zu elements "
                    "differ, max abs error %.9g, max rel error %.9g",
                    what, index, jname, pname, r.ndiff, r.numel, r.max_abs,
                    r.max_rel);
    return SC_OK;
}

/* A failure of the forward or backward graph is a verdict, unless memory
 * ran out. */
static sc_status run_verdict(sc_validate_report *rep, const char *which,
                             sc_status status, sc_error *err)
{
    char msg[SC_ERROR_MESSAGE_MAX];
    if (status == SC_ERR_NOMEM)
        return status;
    sc_error_format(err, msg, sizeof msg);
    fail_report(rep, SC_VALIDATE_RUN_ERROR, "the %s graph failed: %s", which,
                msg);
    sc_error_init(err);
    return SC_OK;
}

sc_status sc_validate_run(const sc_graph *joint, const sc_graph *fw,
                          const sc_graph *bw, const sc_validate_options *opts,
                          sc_validate_report *report, sc_error *err)
{
    sc_validate_options defaults;
    sc_interp_options io;
    sc_symmap *binding = NULL;
    size_t nph, npri, ntan, nout, nfwd, nfw_out = 0, nsaved = 0, nbw_ph, k;
    sc_tensor **inputs = NULL, **jin = NULL, **fin = NULL, **bin = NULL;
    sc_tensor **jout = NULL, **fout = NULL, **bout = NULL;
    sc_status status = SC_OK;

    sc_error_init(err);
    memset(report, 0, sizeof *report);
    report->passed = true;
    report->predicted_saved_bytes = -1;
    report->joint_node = report->part_node = "";
    if (!opts) {
        sc_validate_options_init(&defaults);
        opts = &defaults;
    }
    report->predicted_saved_bytes = opts->predicted_saved_bytes;
    if (!joint || !fw || !bw)
        return sc__error_set(err, SC_ERR_INVALID, "a graph is missing");
    if (sc_graph_ctx(fw) != sc_graph_ctx(joint) ||
        sc_graph_ctx(bw) != sc_graph_ctx(joint))
        return sc__error_set(err, SC_ERR_INVALID,
                             "the three graphs must share one context");

    nph = sc_graph_placeholder_count(joint);
    npri = sc_graph_primal_count(joint);
    ntan = sc_graph_tangent_count(joint);
    nout = sc_graph_output_count(joint);
    nfwd = sc_graph_fwd_output_count(joint);
    nbw_ph = sc_graph_placeholder_count(bw);

    /* Structure. */
    nfw_out = sc_graph_output_count(fw);
    if (sc_graph_placeholder_count(fw) != npri)
        fail_report(report, SC_VALIDATE_STRUCTURE,
                    "the forward graph takes %zu inputs, the joint graph has "
                    "%zu primals",
                    sc_graph_placeholder_count(fw), npri);
    else if (nfw_out < nfwd)
        fail_report(report, SC_VALIDATE_STRUCTURE,
                    "the forward graph returns %zu values, fewer than the "
                    "joint graph's %zu forward outputs",
                    nfw_out, nfwd);
    else if (nbw_ph != nfw_out - nfwd + ntan)
        fail_report(report, SC_VALIDATE_STRUCTURE,
                    "the backward graph takes %zu inputs, but the forward "
                    "graph saves %zu values and there are %zu tangents",
                    nbw_ph, nfw_out - nfwd, ntan);
    else if (sc_graph_output_count(bw) != nout - nfwd)
        fail_report(report, SC_VALIDATE_STRUCTURE,
                    "the backward graph returns %zu values, the joint graph "
                    "%zu gradients",
                    sc_graph_output_count(bw), nout - nfwd);
    if (!report->passed)
        return SC_OK;
    nsaved = nfw_out - nfwd;
    report->saved_count = nsaved;

    /* Inputs. */
    inputs = sc__calloc(nph + 1, sizeof *inputs);
    jin = sc__calloc(nph + 1, sizeof *jin);
    fin = sc__calloc(npri + 1, sizeof *fin);
    bin = sc__calloc(nbw_ph + 1, sizeof *bin);
    jout = sc__calloc(nout + 1, sizeof *jout);
    fout = sc__calloc(nfw_out + 1, sizeof *fout);
    bout = sc__calloc(nout - nfwd + 1, sizeof *bout);
    binding = sc_symmap_new(sc_graph_ctx(joint));
    if (!inputs || !jin || !fin || !bin || !jout || !fout || !bout ||
        !binding) {
        status = sc__error_nomem(err);
        goto fail;
    }
    if (opts->inputs) {
        SC_CHECK(sc__interp_clone_tensors(opts->inputs, nph, inputs, err));
    } else {
        SC_CHECK(sc_interp_bind_sizes(joint, opts->sizes, binding, err));
        SC_CHECK(sc_interp_random_inputs(joint, binding, opts->seed,
                                         opts->int_high, inputs, err));
    }

    /* The joint graph. */
    sc_interp_options_init(&io);
    io.seed = opts->seed;
    io.boundary = SC_INTERP_BOUNDARY_FORWARD;
    SC_CHECK(sc__interp_clone_tensors(inputs, nph, jin, err));
    SC_CHECK(sc_interp_run(joint, jin, &io, jout, &report->joint_stats, err));

    /* The forward graph, on fresh copies of the primals. */
    io.boundary = SC_NODE_NONE;
    SC_CHECK(sc__interp_clone_tensors(inputs, npri, fin, err));
    status = sc_interp_run(fw, fin, &io, fout, &report->fw_stats, err);
    if (status != SC_OK) {
        status = run_verdict(report, "forward", status, err);
        goto fail;
    }
    for (k = 0; k < nsaved; k++) {
        sc_node_id o = sc_graph_output(fw, nfwd + k);
        sc_result r;
        if (o == SC_NODE_NONE || !fout[nfwd + k])
            continue;
        sc_graph_node_result(fw, o, &r);
        if (r.kind == SC_RESULT_SYMINT)
            continue;
        /* A reduced-precision batch norm's statistics are float32 in the
         * kernels, as in PyTorch's CPU kernel, but saved at their
         * annotation's itemsize in PyTorch's and symcut's accounting: the
         * check compares like with like (doc/interp.md). */
        if (r.kind == SC_RESULT_TENSOR && sc__interp_bn_stat_f32(fw, o))
            report->saved_bytes += sc_tensor_numel(fout[nfwd + k]) *
                                   sc_dtype_itemsize(r.tensor.dtype);
        else
            report->saved_bytes += sc_tensor_nbytes(fout[nfwd + k]);
    }

    /* The backward graph, on the saved values and the tangents.  As in
     * PyTorch, the forward returns the saved tensors, then the saved
     * SymInts, and the backward takes the SymInts first. */
    {
        size_t j = 0;
        for (int pass = 0; pass < 2; pass++)
            for (k = 0; k < nsaved; k++) {
                sc_node_id o = sc_graph_output(fw, nfwd + k);
                sc_result r;
                bool symint = false;
                if (o != SC_NODE_NONE) {
                    sc_graph_node_result(fw, o, &r);
                    symint = r.kind == SC_RESULT_SYMINT;
                }
                if (symint == (pass == 0))
                    bin[j++] = fout[nfwd + k];
            }
    }
    for (k = 0; k < ntan; k++)
        bin[nsaved + k] = inputs[npri + k];
    status = sc_interp_run(bw, bin, &io, bout, &report->bw_stats, err);
    if (status != SC_OK) {
        status = run_verdict(report, "backward", status, err);
        goto fail;
    }

    /* Compare. */
    for (k = 0; k < nfwd; k++)
        SC_CHECK(check_value(report, SC_VALIDATE_FORWARD_OUTPUT, k,
                             "forward output",
                             out_name(joint, sc_graph_output(joint, k)),
                             out_name(fw, sc_graph_output(fw, k)), jout[k],
                             fout[k], err));
    for (k = nfwd; k < nout; k++)
        SC_CHECK(check_value(report, SC_VALIDATE_GRADIENT, k, "gradient",
                             out_name(joint, sc_graph_output(joint, k)),
                             out_name(bw, sc_graph_output(bw, k - nfwd)),
                             jout[k], bout[k - nfwd], err));
    for (k = 0; k < npri; k++)
        SC_CHECK(check_value(report, SC_VALIDATE_MUTATED_INPUT, k,
                             "mutated input",
                             sc_graph_node_name(joint, (sc_node_id)k),
                             sc_graph_node_name(fw, (sc_node_id)k), jin[k],
                             fin[k], err));
    if (opts->predicted_saved_bytes >= 0 &&
        (uint64_t)opts->predicted_saved_bytes != report->saved_bytes)
        fail_report(report, SC_VALIDATE_SAVED_BYTES,
                    "the forward graph saves %zu bytes in %zu values, the "
                    "prediction is %lld bytes",
                    report->saved_bytes, nsaved,
                    (long long)opts->predicted_saved_bytes);

fail:
    if (inputs)
        sc__interp_free_tensors(inputs, nph);
    if (jin)
        sc__interp_free_tensors(jin, nph);
    if (fin)
        sc__interp_free_tensors(fin, npri);
    if (jout)
        sc__interp_free_tensors(jout, nout);
    if (fout)
        sc__interp_free_tensors(fout, nfw_out);
    if (bout)
        sc__interp_free_tensors(bout, nout - nfwd);
    sc__free(inputs);
    sc__free(jin);
    sc__free(fin);
    sc__free(bin);
    sc__free(jout);
    sc__free(fout);
    sc__free(bout);
    sc_symmap_free(binding);
    return status;
}
