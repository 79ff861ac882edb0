/* symcut — the command-line parser the subcommands share: each declares a
 * table of options (cli_opt) and cli_parse_options walks argv by it; also
 * the partitioner's ban-rule options of partition and validate. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"

/* An unsigned integer in C syntax: no sign, not empty, no junk. */
static bool parse_uint(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (!s[0] || s[0] == '-')
        return false;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (*end || errno)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool parse_count(const char *s, long *out)
{
    char *endp;
    long v;
    errno = 0;
    v = strtol(s, &endp, 10);
    if (*endp || endp == s || errno || v < 0)
        return false;
    *out = v;
    return true;
}

static bool parse_number(const char *s, bool positive, double *out)
{
    char *end;
    double d;
    errno = 0;
    d = strtod(s, &end);
    if (!s[0] || *end || errno || !isfinite(d) || d < 0 ||
        (positive && d == 0))
        return false;
    *out = d;
    return true;
}

void cli_list_free(cli_list *l)
{
    free(l->text);
    l->text = NULL;
}

/* The NAME of the item at p (up to its ',' or the end): leading blanks
 * skipped, up to the '='; *len 0 when the item has no '='. */
static const char *item_name(const char *p, size_t *len)
{
    size_t n = strcspn(p, ","), k;
    while (n && *p == ' ') {
        p++;
        n--;
    }
    for (k = 0; k < n && p[k] != '='; k++)
        ;
    *len = k < n ? k : 0;
    return p;
}

/* Does the item list text have an item named name[0..len)? */
static bool has_name(const char *text, const char *name, size_t len)
{
    const char *p = text;
    for (;;) {
        size_t n;
        const char *q = item_name(p, &n);
        if (n == len && n && memcmp(q, name, n) == 0)
            return true;
        p += strcspn(p, ",");
        if (!*p)
            return false;
        p++;
    }
}

/* Append value's items to l, dropping the earlier items of the names it
 * gives; false when out of memory. */
static bool list_append(cli_list *l, const char *value)
{
    size_t old = l->text ? strlen(l->text) : 0, k = 0;
    char *out = malloc(old + strlen(value) + 2);
    const char *p = l->text;

    if (!out)
        return false;
    while (p) {
        size_t n, item = strcspn(p, ",");
        const char *q = item_name(p, &n);
        if (!n || !has_name(value, q, n)) {
            memcpy(out + k, p, item);
            k += item;
            out[k++] = ',';
        }
        p = p[item] ? p + item + 1 : NULL;
    }
    strcpy(out + k, value);
    free(l->text);
    l->text = out;
    return true;
}

static bool takes_value(const cli_opt *o)
{
    return o->kind != CLI_OPT_FLAG && o->kind != CLI_OPT_BITS &&
           o->kind != CLI_OPT_ACTION;
}

static const char *needs_value(const cli_syntax *syn, const cli_opt *o)
{
    if (o->needs_value)
        return o->needs_value;
    return syn->needs_value ? syn->needs_value : "%s needs a value";
}

/* The option argument a names ("--seed", "--seed=1", "-o"); *value the
 * text after '=' in a long option, else NULL. */
static const cli_opt *find_option(const cli_syntax *syn, const char *a,
                                  const char **value)
{
    const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
    size_t len = eq ? (size_t)(eq - a) : strlen(a), k;

    *value = NULL;
    for (k = 0; k < syn->nopts; k++) {
        const cli_opt *o = &syn->opts[k];
        if (o->name && strlen(o->name) == len &&
            strncmp(o->name, a, len) == 0) {
            *value = eq ? eq + 1 : NULL;
            return o;
        }
        if (!eq && o->short_name && strcmp(o->short_name, a) == 0)
            return o;
    }
    return NULL;
}

/* Store value (NULL for an option without one) by o: 0 or the exit
 * status after printing the error. */
static int apply_option(const cli_syntax *syn, const cli_opt *o,
                        const char *value)
{
    const char *name = o->name ? o->name : o->short_name;
    char msg[256];
    uint64_t u;
    long n;
    double d;
    size_t k;

    if (o->seen)
        *o->seen = true;
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(bool *)o->dest = true;
        return 0;
    case CLI_OPT_BITS:
        *(unsigned *)o->dest |= o->bits;
        return 0;
    case CLI_OPT_TEXT:
        *(const char **)o->dest = value;
        return 0;
    case CLI_OPT_LIST:
        if (!list_append(o->dest, value)) {
            cli_errorf("out of memory");
            return CLI_EXIT_INPUT;
        }
        return 0;
    case CLI_OPT_HINTS:
        if (!cli_parse_hints(syn->ctx, value, o->dest, msg, sizeof msg))
            return cli_usage_error(syn->cmd, "%s %s", name, msg);
        return 0;
    case CLI_OPT_COUNT:
        if (!parse_count(value, &n))
            return cli_usage_error(syn->cmd, o->bad, value);
        *(long *)o->dest = n;
        return 0;
    case CLI_OPT_UINT:
        if (!parse_uint(value, &u) || u < o->min || u > o->max)
            return cli_usage_error(syn->cmd, o->bad, value);
        *(uint64_t *)o->dest = u;
        return 0;
    case CLI_OPT_NUMBER:
        if (!parse_number(value, o->min > 0, &d))
            return cli_usage_error(syn->cmd, o->bad, value);
        *(double *)o->dest = d;
        return 0;
    case CLI_OPT_CHOICE:
        for (k = 0; o->choices[k]; k++)
            if (strcmp(o->choices[k], value) == 0) {
                *(const char **)o->dest = value;
                return 0;
            }
        return cli_usage_error(syn->cmd, o->bad, value);
    case CLI_OPT_CALL:
    case CLI_OPT_ACTION:
        return o->fn(syn, o, value);
    }
    return 0;
}

/* An argument that is not an option: 0, or the exit status. */
static int take_argument(const cli_syntax *syn, int argc, int i,
                         const char *a, cli_args *out)
{
    if (out->nargs >= syn->max_args || (syn->args_last && i != argc - 1))
        return cli_usage_error(syn->cmd, syn->too_many, a);
    out->args[out->nargs++] = a;
    return 0;
}

int cli_parse_options(const cli_syntax *syn, int argc, char **argv, int first,
                      cli_args *out)
{
    int i, rc;

    memset(out, 0, sizeof *out);
    out->rest = argc;
    for (i = first; i < argc; i++) {
        const char *a = argv[i], *value;
        const cli_opt *o;

        if (syn->options_first && strcmp(a, "--") == 0) {
            out->rest = i + 1;
            break;
        }
        if (cli_is_help(a)) {
            syn->usage(stdout);
            fputs("\nEvery command:\n"
                  "  -q, --quiet           only errors on standard error\n"
                  "  -v, --verbose         each phase's time and size, and "
                  "the\n"
                  "                        total, on standard error\n"
                  "      --progress        a progress line on standard error "
                  "even\n"
                  "                        when it is not a terminal\n"
                  "      --no-progress     no progress line, even on a "
                  "terminal\n",
                  stdout);
            return CLI_EXIT_OK;
        }
        o = find_option(syn, a, &value);
        if (!o && (cli_verbosity_option(a) || cli_progress_option(a)))
            continue;
        if (!o) {
            bool option = a[0] == '-' &&
                          (syn->options_first ? a[1] == '-' : a[1] != '\0');
            if (option)
                return cli_usage_error(syn->cmd,
                                       syn->unknown ? syn->unknown
                                                    : "unknown option '%s'",
                                       a);
            if (syn->options_first) {
                out->rest = i;
                break;
            }
            if ((rc = take_argument(syn, argc, i, a, out)) != 0)
                return rc;
            continue;
        }
        if (!takes_value(o) && value)
            return cli_usage_error(syn->cmd, "%s takes no value", o->name);
        if (takes_value(o) && !value) {
            if (i + 1 >= argc)
                return cli_usage_error(syn->cmd, needs_value(syn, o), a);
            value = argv[++i];
        }
        if ((rc = apply_option(syn, o, value)) != 0)
            return rc;
    }
    return CLI_PARSED;
}

/* ---- Partitioner ban-rule options (partition, validate) ----------------- */

static const struct {
    const char *name;
    unsigned bit;
} rule_names[] = {
    {"not-in-allowlist", SC_PARTITION_RULE_NOT_IN_ALLOWLIST},
    {"materialized-backward", SC_PARTITION_RULE_MATERIALIZED_BACKWARD},
    {"reductions", SC_PARTITION_RULE_REDUCTIONS},
    {"used-far-apart", SC_PARTITION_RULE_USED_FAR_APART},
    {"long-fusible-chains", SC_PARTITION_RULE_LONG_FUSIBLE_CHAINS}};

#define RULE_NAMES                                                           \
    "not-in-allowlist, materialized-backward, reductions, used-far-apart, "  \
    "long-fusible-chains"

void cli_partition_rules_help(FILE *out)
{
    fputs("  --rule-off NAME       turn a ban rule off (pytorch and exact\n"
          "                        policies); repeatable, or NAME,NAME:\n"
          "                        not-in-allowlist, materialized-backward,\n"
          "                        reductions, used-far-apart,\n"
          "                        long-fusible-chains\n"
          "  --aggressive-recomputation\n"
          "                        every ban rule off but reductions\n"
          "                        (PyTorch's aggressive_recomputation)\n"
          "  --max-dist-from-bw N  ban a forward node more than N (and less\n"
          "                        than 1000) steps from the backward;\n"
          "                        default 1000: never\n"
          "  --long-chain-limit N  the long-fusible-chains rule cuts chains\n"
          "                        of more than N forward nodes; default 100\n"
          "  --unbacked-fallback N a symbol without a hint weighs as the\n"
          "                        upper end of its range if that is at\n"
          "                        most N, else as N; default 8192\n",
          out);
}

/* A decimal integer in [lo, hi]: digits only, no sign, no spaces. */
static bool parse_bounded(const char *s, long long lo, long long hi,
                          long long *out)
{
    char *end;
    long long v;
    if (!(*s >= '0' && *s <= '9'))
        return false;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int rule_off(const char *cmd, const char *text,
                    sc_partition_options *opts)
{
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ","), k;
        bool found = false;
        for (k = 0; k < sizeof rule_names / sizeof rule_names[0]; k++) {
            const char *n = rule_names[k].name;
            size_t j;
            if (strlen(n) != len)
                continue;
            /* also PyTorch's spelling: used_far_apart */
            for (j = 0; j < len && (p[j] == n[j] ||
                                    (p[j] == '_' && n[j] == '-'));
                 j++)
                ;
            if (j == len) {
                opts->rules_off |= rule_names[k].bit;
                found = true;
            }
        }
        if (!found)
            return cli_usage_error(cmd,
                                   "--rule-off: unknown rule '%.*s' (rules: "
                                   RULE_NAMES ")",
                                   (int)len, p);
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

int cli_policy_option(const cli_syntax *syn, const cli_opt *o,
                      const char *value)
{
    if (!sc_partition_policy_from_name(value, o->dest))
        return cli_usage_error(syn->cmd, o->bad, value);
    return 0;
}

int cli_partition_rule_option(const cli_syntax *syn, const cli_opt *o,
                              const char *value)
{
    cli_rules *r = o->dest;
    const char *opt = o->name;
    sc_partition_options *opts = r->opts;
    const char *cmd = syn->cmd;
    long long n;

    if (!r->any)
        r->any = opt;
    if (strcmp(opt, "--unbacked-fallback") == 0) {
        if (!parse_bounded(value, 1, INT64_MAX, &n))
            return cli_usage_error(cmd, "--unbacked-fallback needs an "
                                        "integer from 1 to %lld, not '%s'",
                                   (long long)INT64_MAX, value);
        opts->unbacked_fallback = (int64_t)n;
        return 0; /* weighs under every policy */
    }
    if (strcmp(opt, "--aggressive-recomputation") == 0) {
        opts->rules_off |= SC_PARTITION_RULES_AGGRESSIVE;
    } else if (strcmp(opt, "--rule-off") == 0) {
        if (rule_off(cmd, value, opts) != 0)
            return CLI_EXIT_USAGE;
    } else {
        if (!parse_bounded(value, 0, INT32_MAX, &n))
            return cli_usage_error(cmd, "%s needs an integer from 0 to %ld, "
                                        "not '%s'",
                                   opt, (long)INT32_MAX, value);
        /* the options' 0 is PyTorch's default; a negative value is 0 */
        if (strcmp(opt, "--max-dist-from-bw") == 0)
            opts->max_dist_from_bw = n ? (int32_t)n : -1;
        else
            opts->long_chain_limit = n ? (int32_t)n : -1;
    }
    if (!r->given)
        r->given = opt;
    return 0;
}

int cli_check_partition_rules(const char *cmd, const cli_rules *r)
{
    if (r->given && r->opts->policy == SC_PARTITION_PYTORCH_1_13)
        return cli_usage_error(cmd,
                               "%s is for the pytorch and exact policies: "
                               "pytorch-1.13 has none of those ban rules",
                               r->given);
    return 0;
}

/* --params: a count N, or primal indices I,J,... (a list has a comma;
 * "3," is the single index 3) */
int cli_params_option(const cli_syntax *syn, const cli_opt *o,
                      const char *value)
{
    cli_params *pa = o->dest;
    const char *s = value;
    bool list = strchr(value, ',') != NULL;
    pa->n = 0;
    pa->count = -1;
    while (*s) {
        char *end;
        unsigned long v;
        if (*s < '0' || *s > '9')
            break;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || v > (1ul << 30))
            break;
        if (!list) {
            if (*end)
                break;
            pa->count = (long)v;
            return 0;
        }
        if (pa->n == sizeof pa->idx / sizeof pa->idx[0])
            return cli_usage_error(syn->cmd, "--params: more than %zu "
                                             "indices",
                                   sizeof pa->idx / sizeof pa->idx[0]);
        pa->idx[pa->n++] = (size_t)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            break;
    }
    if (list && !*s && pa->n > 0)
        return 0;
    return cli_usage_error(syn->cmd, "--params needs a count N or primal "
                                     "indices I,J,... (non-negative "
                                     "integers), not '%s'",
                           value);
}

int cli_params_check(const char *cmd, const cli_params *pa, size_t np)
{
    size_t k;
    if (pa->count >= 0 && (size_t)pa->count > np)
        return cli_usage_error(cmd,
                               "--params %ld: the graph has %zu primals (the "
                               "parameters are the first N of them)",
                               pa->count, np);
    for (k = 0; k < pa->n; k++)
        if (pa->idx[k] >= np)
            return cli_usage_error(cmd,
                                   "--params: index %zu is beyond the "
                                   "graph's %zu primals (numbered from 0)",
                                   pa->idx[k], np);
    return 0;
}

void cli_params_apply(const cli_params *pa, sc_partition_options *opts)
{
    opts->num_params = pa->count;
    opts->nparam_indices = pa->n;
    opts->param_indices = pa->idx;
}
