/* symcut — `symcut partition --format html`: one self-contained page with
 * the decision, its reasons, the graph (SVG from Graphviz when installed)
 * and the frontier plot.  The page is built in memory (a FILE * on an
 * open_memstream buffer) and written by the command all or nothing. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/html.h"

extern char **environ;

/* Above this many drawn nodes the page does not run Graphviz (its layout
 * of the whole graph would take minutes) and says how to draw a part. */
#define HTML_MAX_DRAWN_NODES 5000

static void esc(FILE *out, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
}

static const char style[] =
    "<style>\n"
    "body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}\n"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;"
    "vertical-align:top;font-size:13px}\n"
    "th{background:#f0f0f0}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{font-size:12px}\n"
    ".saved{background:#fff3b0}.recomputed{background:#dff0d0}\n"
    ".missing{color:#a00}\n"
    ".graph{overflow:auto;border:1px solid #ccc;max-height:80vh}\n"
    "</style>\n";

/* A node's type as the text report prints it. */
static void put_type(FILE *out, const sc_partition *p, sc_node_id id)
{
    sc_result r;
    size_t d;
    sc_graph_node_result(sc_partition_joint(p), id, &r);
    if (r.kind == SC_RESULT_TENSOR) {
        fprintf(out, "%s[", sc_dtype_code(r.tensor.dtype));
        for (d = 0; d < r.tensor.ndim; d++) {
            char *s = sc_expr_to_str(sc_graph_ctx(sc_partition_joint(p)),
                                     r.tensor.sizes[d]);
            fprintf(out, "%s", d ? ", " : "");
            esc(out, s ? s : "?");
            free(s);
        }
        fputc(']', out);
    } else if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL) {
        char *s = sc_expr_to_str(sc_graph_ctx(sc_partition_joint(p)), r.expr);
        fputs("Sym(", out);
        esc(out, s ? s : "?");
        fputc(')', out);
        free(s);
    } else {
        fputs(r.kind == SC_RESULT_TUPLE ? "tuple" : "?", out);
    }
}

static void decision_row(FILE *out, const cli_html_page *pg, sc_node_id id,
                         const char *what)
{
    const sc_partition *p = pg->part;
    const sc_graph *g = pg->joint;
    const char *code, *reason, *target = sc_graph_node_target(g, id);
    int64_t bytes = sc_partition_node_bytes(p, id);
    sc_partition_ban ban = sc_partition_node_ban(p, id);

    reason = sc_partition_report_reason(p, pg->info->budget, id, &code);
    fprintf(out, "<tr class=\"%s\"><td>%s</td><td><code>", what, what);
    esc(out, sc_graph_node_name(g, id));
    fputs("</code></td><td><code>", out);
    esc(out, target ? target : "placeholder");
    fputs("</code></td><td><code>", out);
    put_type(out, p, id);
    fputs("</code></td><td class=\"n\">", out);
    if (bytes >= 0)
        fprintf(out, "%lld", (long long)bytes);
    fputs("</td><td><code>", out);
    if (ban != SC_PARTITION_BAN_NONE)
        esc(out, sc_partition_ban_code(ban));
    fputs("</code></td><td><code>", out);
    esc(out, code);
    fputs("</code></td><td>", out);
    esc(out, reason);
    fputs("</td></tr>\n", out);
}

static void put_decision(FILE *out, const cli_html_page *pg)
{
    const sc_partition *p = pg->part;
    size_t i;
    fputs("<h2 id=\"decision\">Decision</h2>\n<table>\n<tr><th>what</th>"
          "<th>node</th><th>op</th><th>type</th><th>bytes</th><th>ban</th>"
          "<th>reason code</th><th>reason</th></tr>\n",
          out);
    for (i = 0; i < sc_partition_saved_tensor_count(p); i++)
        decision_row(out, pg, sc_partition_saved_tensor(p, i), "saved");
    for (i = 0; i < sc_partition_saved_symint_count(p); i++)
        decision_row(out, pg, sc_partition_saved_symint(p, i), "saved");
    for (i = 0; i < sc_partition_recomputed_count(p); i++)
        decision_row(out, pg, sc_partition_recomputed(p, i), "recomputed");
    fputs("</table>\n", out);
}

/* Every node's reason, counted by code (in the order first met). */
static int put_reasons(FILE *out, const cli_html_page *pg)
{
    const sc_partition *p = pg->part;
    size_t n = sc_graph_node_count(pg->joint), i, k, nc = 0;
    struct {
        const char *code, *reason;
        size_t count;
    } *c = calloc(n ? n : 1, sizeof *c);

    if (!c)
        return -1;
    for (i = 0; i < n; i++) {
        const char *code,
            *reason = sc_partition_report_reason(p, pg->info->budget,
                                                 (sc_node_id)i, &code);
        for (k = 0; k < nc; k++)
            if (strcmp(c[k].code, code) == 0 &&
                strcmp(c[k].reason, reason) == 0)
                break;
        if (k == nc) {
            c[nc].code = code;
            c[nc++].reason = reason;
        }
        c[k].count++;
    }
    fputs("<h2 id=\"reasons\">Reasons</h2>\n<table>\n<tr><th>code</th>"
          "<th>nodes</th><th>reason</th></tr>\n",
          out);
    for (k = 0; k < nc; k++) {
        fputs("<tr><td><code>", out);
        esc(out, c[k].code);
        fprintf(out, "</code></td><td class=\"n\">%zu</td><td>", c[k].count);
        esc(out, c[k].reason);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    free(c);
    if (sc_partition_warning_count(p)) {
        fputs("<h3>Warnings</h3>\n<ul>\n", out);
        for (i = 0; i < sc_partition_warning_count(p); i++) {
            fputs("<li>", out);
            esc(out, sc_partition_warning(p, i));
            fputs("</li>\n", out);
        }
        fputs("</ul>\n", out);
    }
    return 0;
}

static void row_u(FILE *out, const char *k, unsigned long long v)
{
    fprintf(out, "<tr><th>%s</th><td class=\"n\">%llu</td></tr>\n", k, v);
}

static void row_s(FILE *out, const char *k, const char *v)
{
    fprintf(out, "<tr><th>%s</th><td>", k);
    esc(out, v);
    fputs("</td></tr>\n", out);
}

static void put_summary(FILE *out, const cli_html_page *pg)
{
    const sc_partition *p = pg->part;
    const sc_partition_budget_outcome *b = pg->info->budget;
    size_t unknown;
    int64_t flops = sc_partition_recompute_flops(p, &unknown);

    fputs("<table>\n", out);
    row_s(out, "input", pg->info->input ? pg->info->input : "(not said)");
    row_s(out, "policy",
          sc_partition_policy_name(sc_partition_policy_in_force(p)));
    row_u(out, "joint nodes", sc_graph_node_count(pg->joint));
    row_u(out, "saved tensors", sc_partition_saved_tensor_count(p));
    row_u(out, "saved symints", sc_partition_saved_symint_count(p));
    row_u(out, "recomputed nodes", sc_partition_recomputed_count(p));
    row_u(out, "saved bytes", (unsigned long long)sc_partition_saved_bytes(p));
    row_u(out, "trivial partition bytes",
          (unsigned long long)sc_partition_trivial_bytes(p));
    row_u(out, "recompute FLOPs", (unsigned long long)flops);
    fputs("</table>\n", out);
    if (!b || b->kind == SC_PARTITION_BUDGET_NONE)
        return;
    fputs("<h2 id=\"budget\">Memory budget</h2>\n<table>\n", out);
    if (b->kind == SC_PARTITION_BUDGET_BYTES)
        row_u(out, "asked (bytes)", b->asked_bytes);
    else
        fprintf(out, "<tr><th>asked (ratio)</th><td class=\"n\">%g</td>"
                     "</tr>\n",
                b->asked_ratio);
    if (b->has_budget_bytes)
        row_u(out, "budget (bytes)", b->budget_bytes);
    row_s(out, "solver", sc_partition_solver_code(b->solver));
    row_s(out, "how", sc_partition_solver_text(b->solver));
    row_s(out, "optimal", b->optimal ? "proven" : "not proven");
    if (b->valid) {
        row_u(out, "recompute cost", b->recompute_cost);
        row_u(out, "lower bound (proven)", b->lower_bound);
        row_u(out, b->has_budget_bytes ? "the hull's bound (at the budget)"
                                       : "the hull's bound (at its saved "
                                         "bytes)",
              b->hull_bound);
        row_u(out, "gap", b->gap);
    } else {
        row_s(out, "exact frontier",
              "the decision recomputes what no valid decision may");
    }
    row_u(out, "least bytes of any valid decision", b->least_bytes);
    row_u(out, "exact default cut (bytes)", b->default_bytes);
    fputs("</table>\n", out);
}

/* The executable prog names, as execvp would find it (a name with a slash
 * as is, else the first executable match on PATH), into path; 0 on success,
 * else an errno (ENOENT, EACCES, ENAMETOOLONG).  Looked up here rather than
 * left to posix_spawnp because how a spawn reports a missing program
 * differs between C libraries and under valgrind (an error return, or a
 * child that exits 127), and the page names the reason either way. */
static int find_program(const char *prog, char *path, size_t size)
{
    const char *dirs = getenv("PATH"), *p, *colon;
    int why = ENOENT;

    if (strchr(prog, '/')) {
        if ((size_t)snprintf(path, size, "%s", prog) >= size)
            return ENAMETOOLONG;
        return access(path, X_OK) == 0 ? 0 : errno;
    }
    for (p = dirs && *dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; ;
         p = colon + 1) {
        size_t n;

        colon = strchr(p, ':');
        n = colon ? (size_t)(colon - p) : strlen(p);
        if ((size_t)snprintf(path, size, "%.*s%s%s", (int)n, p,
                             n ? "/" : "", prog) < size) {
            if (access(path, X_OK) == 0)
                return 0;
            if (errno == EACCES)
                why = EACCES;
        }
        if (!colon)
            return why;
    }
}

/* Run Graphviz on the DOT text; the SVG (from its "<svg") or NULL with a
 * reason in why. */
static char *run_dot(const char *prog, const char *dot, size_t dlen,
                     char *why, size_t wsize)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], in[4200], svg[4200], errf[4200], exe[4096];
    char *argv[6], *text = NULL, *start;
    posix_spawn_file_actions_t fa;
    size_t len = 0;
    sc_error err;
    pid_t pid;
    int fd, st, rc;

    if ((rc = find_program(prog, exe, sizeof exe)) != 0) {
        snprintf(why, wsize, "Graphviz (%s) is not installed: %s", prog,
                 strerror(rc));
        return NULL;
    }
    snprintf(dir, sizeof dir, "%s/symcut-html-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, wsize, "no temporary directory: %s", strerror(errno));
        return NULL;
    }
    snprintf(in, sizeof in, "%s/graph.dot", dir);
    snprintf(svg, sizeof svg, "%s/graph.svg", dir);
    snprintf(errf, sizeof errf, "%s/stderr", dir);
    fd = open(in, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || write(fd, dot, dlen) != (ssize_t)dlen) {
        snprintf(why, wsize, "cannot write the DOT text: %s",
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        goto done;
    }
    close(fd);
    argv[0] = (char *)prog;
    argv[1] = (char *)"-Tsvg";
    argv[2] = (char *)"-o";
    argv[3] = svg;
    argv[4] = in;
    argv[5] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT, 0600);
    rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(why, wsize, "Graphviz (%s) could not be run: %s", prog,
                 strerror(rc));
        goto done;
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char *e = cli_read_file(errf, &len, &err);
        char *nl = e ? strchr(e, '\n') : NULL;
        if (nl)
            *nl = '\0';
        snprintf(why, wsize, "Graphviz (%s) failed%s%s", prog,
                 e && *e ? ": " : "", e ? e : "");
        free(e);
        goto done;
    }
    text = cli_read_file(svg, &len, &err);
    if (!text) {
        snprintf(why, wsize, "cannot read Graphviz's SVG");
    } else if (!(start = strstr(text, "<svg"))) {
        snprintf(why, wsize, "Graphviz (%s) wrote no SVG", prog);
        free(text);
        text = NULL;
    } else {
        memmove(text, start, strlen(start) + 1);
    }
done:
    unlink(in);
    unlink(svg);
    unlink(errf);
    rmdir(dir);
    return text;
}

static sc_status put_graph(FILE *out, const cli_html_page *pg, sc_error *err)
{
    char *dot = NULL, *svg = NULL, why[600];
    size_t len = 0;
    size_t n = sc_graph_node_count(pg->joint);
    const char *prog = pg->dot ? pg->dot : "dot";
    sc_status status;

    fputs("<h2 id=\"graph\">Graph</h2>\n", out);
    if (pg->info->around == SC_NODE_NONE && n > HTML_MAX_DRAWN_NODES) {
        fprintf(out,
                "<p class=\"missing\">The joint has %zu nodes: too many to "
                "draw here (more than %d). <code>--around NODE --depth "
                "K</code> draws the part around a node.</p>\n",
                n, HTML_MAX_DRAWN_NODES);
        return SC_OK;
    }
    status = sc_partition_write_report(pg->part, pg->info,
                                       SC_PARTITION_REPORT_DOT,
                                       pg->report_flags, &dot, &len, err);
    if (status != SC_OK)
        return status;
    if (!*prog)
        snprintf(why, sizeof why, "Graphviz is not installed");
    else
        svg = run_dot(prog, dot, len, why, sizeof why);
    if (svg) {
        fputs("<div class=\"graph\">\n", out);
        fputs(svg, out);
        fputs("</div>\n", out);
    } else {
        fputs("<p class=\"missing\">No picture: ", out);
        esc(out, why);
        fputs(". The DOT text is below; <code>symcut partition --format "
              "dot</code> writes it too.</p>\n<details><summary>DOT"
              "</summary><pre>",
              out);
        esc(out, dot);
        fputs("</pre></details>\n", out);
    }
    free(svg);
    free(dot);
    return SC_OK;
}

/* The memory/recompute frontier of the joint under the page's policy,
 * drawn by the pareto command's SVG writer (its hull vertices; the SVG is
 * inline).  A joint whose frontier cannot be computed gets the reason in
 * place of the plot: the rest of the page stands. */
static void put_frontier(FILE *out, const sc_graph *joint,
                         const sc_partition_options *opts, const char *title)
{
    sc_frontier_options fo;
    sc_frontier *fr = NULL;
    sc_error err;

    sc_frontier_options_init(&fo);
    if (sc_frontier_compute(joint, opts, &fo, &fr, &err) != SC_OK) {
        fputs("<p class=\"missing\">No frontier: ", out);
        esc(out, err.message);
        fputs("</p>\n", out);
        return;
    }
    fputs("<p>Saved bytes against recompute cost, every vertex of the "
          "lower convex hull; <code>symcut pareto</code> lists them.</p>\n",
          out);
    if (cli_pareto_write_svg(out, fr, title ? title : "joint") != 0)
        fputs("<p class=\"missing\">The frontier has no point to "
              "plot.</p>\n",
              out);
    sc_frontier_free(fr);
}

sc_status cli_partition_html(const cli_html_page *pg, char **out,
                             size_t *len, sc_error *err)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f;
    sc_status status = SC_OK;
    int bad;

    *out = NULL;
    sc_error_init(err);
    f = open_memstream(&buf, &n);
    if (!f) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<title>symcut partition",
          f);
    if (pg->info->input) {
        fputs(": ", f);
        esc(f, pg->info->input);
    }
    fputs("</title>\n", f);
    fputs(style, f);
    fputs("</head>\n<body>\n<h1>symcut partition", f);
    if (pg->info->input) {
        fputs(" of <code>", f);
        esc(f, pg->info->input);
        fputs("</code>", f);
    }
    fputs("</h1>\n", f);
    put_summary(f, pg);
    put_decision(f, pg);
    bad = put_reasons(f, pg);
    if (!bad)
        status = put_graph(f, pg, err);
    if (!bad && status == SC_OK) {
        fputs("<h2 id=\"frontier\">Frontier</h2>\n", f);
        put_frontier(f, pg->joint, pg->opts, pg->info->input);
    }
    fputs("</body>\n</html>\n", f);
    bad |= ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (status != SC_OK) {
        free(buf);
        return status;
    }
    if (bad || !buf) {
        free(buf);
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    *out = buf;
    if (len)
        *len = n;
    return SC_OK;
}
