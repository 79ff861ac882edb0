/* symcut — helpers shared by the subcommands: messages, files, and the
 * `name=value` argument syntax. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/write-graph.h"

/* ---- Verbosity ---------------------------------------------------------- */

/* The process's verbosity (-q, -v): the command line tool's own state. */
static int verbosity;
static double phase_mark = -1.0, start_time = -1.0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_verbosity_option(const char *arg)
{
    if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0)
        verbosity = 1;
    else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)
        verbosity = -1;
    else
        return false;
    return true;
}

int cli_verbosity(void)
{
    return verbosity;
}

void cli_start_clock(void)
{
    start_time = phase_mark = now();
}

void cli_phasef(const char *fmt, ...)
{
    va_list ap;
    double t = now();
    if (verbosity <= 0)
        return;
    if (phase_mark < 0)
        phase_mark = start_time = t;
    cli_progress_clear();
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (%.3f s)\n", t - phase_mark);
    phase_mark = t;
}

void cli_noticef(const char *fmt, ...)
{
    va_list ap;
    if (verbosity < 0)
        return;
    cli_progress_clear();
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The peak resident memory in kB (VmHWM), or 0 when unknown. */
static long peak_rss_kb(void)
{
    char line[128];
    long kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

void cli_errorf(const char *fmt, ...)
{
    va_list ap;
    /* -q: the warnings and notes go, the errors stay */
    if (verbosity < 0 && (strncmp(fmt, "warning: ", 9) == 0 ||
                          strncmp(fmt, "note: ", 6) == 0))
        return;
    cli_progress_clear();
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_report(const sc_error *err)
{
    char buf[SC_ERROR_MESSAGE_MAX + SC_ERROR_FILE_MAX + 64];
    sc_error_format(err, buf, sizeof buf);
    cli_progress_clear();
    fprintf(stderr, "symcut: %s\n", buf);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("symcut: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'symcut %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_finish_stdout(int rc)
{
    bool failed = ferror(stdout) != 0;
    int e = 0;

    cli_progress_done();
    if (verbosity > 0 && start_time >= 0) {
        long kb = peak_rss_kb();
        fprintf(stderr, "symcut: total %.3f s", now() - start_time);
        if (kb)
            fprintf(stderr, ", peak memory %.1f MB", (double)kb / 1024.0);
        fputc('\n', stderr);
    }

    /* an error of an earlier flush stays in ferror: errno is then lost */
    if (fflush(stdout) != 0) {
        failed = true;
        e = errno;
    }
    /* closing catches the errors only close reports (NFS); a standard
     * output closed by the caller (>&-) with nothing written is fine */
    if (fclose(stdout) != 0 && errno != EBADF && !failed) {
        failed = true;
        e = errno;
    }
    if (!failed)
        return rc;
    /* a command that failed otherwise has said why (a write to standard
     * output included); a check that failed, or a success, has not */
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_CHECK)
        return rc;
    if (e)
        cli_errorf("cannot write to standard output: %s", strerror(e));
    else
        cli_errorf("cannot write to standard output");
    return rc != CLI_EXIT_OK ? rc : CLI_EXIT_INPUT;
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

sc_status cli_check_input_file(const char *path, sc_error *err)
{
    struct stat st;

    sc_error_init(err);
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return SC_OK;
    err->code = SC_ERR_IO;
    snprintf(err->message, sizeof err->message,
             "cannot read '%s': it is a directory, not a file", path);
    return SC_ERR_IO;
}

char *cli_read_file(const char *path, size_t *len, sc_error *err)
{
    FILE *f;
    char *buf = NULL, *p;
    size_t cap = 0, n = 0, got;
    bool is_stdin = strcmp(path, "-") == 0;

    sc_error_init(err);
    {
        /* until the next report: reading, and what the command does with
         * the text (the graph reader) */
        char phase[300];
        snprintf(phase, sizeof phase, "reading %s",
                 is_stdin ? "<stdin>" : path);
        cli_progress_phase(phase);
    }
    f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message, "cannot open '%s': %s",
                 path, strerror(errno));
        return NULL;
    }
    if (!is_stdin && cli_check_input_file(path, err) != SC_OK) {
        fclose(f);
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            cap = cap ? cap * 2 : 65536;
            p = realloc(buf, cap + 1);
            if (!p) {
                err->code = SC_ERR_NOMEM;
                snprintf(err->message, sizeof err->message,
                         "out of memory reading '%s'", path);
                goto fail;
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message, "cannot read '%s': %s",
                 is_stdin ? "<stdin>" : path, strerror(errno));
        goto fail;
    }
    if ((p = memchr(buf, '\0', n)) != NULL) {
        const char *q, *ls = buf;
        err->code = SC_ERR_PARSE;
        err->line = 1;
        for (q = buf; q < p; q++)
            if (*q == '\n') {
                err->line++;
                ls = q + 1;
            }
        err->column = (int)(p - ls) + 1;
        snprintf(err->file, sizeof err->file, "%s",
                 is_stdin ? "<stdin>" : path);
        snprintf(err->message, sizeof err->message,
                 "NUL byte: not a text file");
        goto fail;
    }
    buf[n] = '\0';
    if (!is_stdin)
        fclose(f);
    if (len)
        *len = n;
    cli_phasef("read %s: %zu bytes", is_stdin ? "<stdin>" : path, n);
    return buf;
fail:
    if (!is_stdin)
        fclose(f);
    free(buf);
    return NULL;
}

/* ---- Output files --------------------------------------------------------
 *
 * An output path is resolved first (resolve_output): a regular file, or a
 * path where nothing exists yet, is written to a new file beside it and
 * renamed into place once every output is ready (a symlink is followed to
 * its final target, so the link stays a link and its target is replaced);
 * anything else that exists (a character or block device, a FIFO, a
 * socket, a link into /proc such as /dev/stdout) is opened and written
 * through.  A directory is an error. */

typedef struct out_file {
    const char *path; /* as given: for the messages */
    char *target;     /* the path to write (malloc'ed): the final target of
                       * the symlinks, or the path itself */
    bool through;     /* write through (open and write), no rename */
    int fd;           /* through a link to a descriptor of this process
                       * (/proc/self/fd/N, /dev/fd/N): N, written as it is
                       * (no open: a pipe of another user's shell cannot be
                       * opened again); else -1 */
    mode_t mode;      /* staged: the mode of the file it replaces, or the
                       * mode the umask gives a new file */
    char *tmp;        /* staged: the temporary file beside target */
} out_file;

static sc_status io_error(sc_error *err, const char *fmt, const char *path,
                          int errnum)
{
    err->code = SC_ERR_IO;
    snprintf(err->message, sizeof err->message, fmt, path, strerror(errnum));
    return SC_ERR_IO;
}

static sc_status out_of_memory(sc_error *err)
{
    err->code = SC_ERR_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return SC_ERR_NOMEM;
}

/* Is the symlink at path a "magic" link of /proc (/proc/self/fd/1, what
 * /dev/stdout points to)?  Its target is not a path to rename over: such
 * a link is written through. */
static bool in_proc(const char *path)
{
#if defined(__linux__)
    struct statfs fs;
    char *dir = strdup(path), *slash;
    bool r = false;

    if (!dir)
        return false;
    slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    r = statfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
    free(dir);
    return r;
#else
    return strncmp(path, "/proc/", 6) == 0;
#endif
}

/* The descriptor N of this process that the /proc link p names
 * (/proc/self/fd/N, /proc/PID/fd/N, /dev/fd/N), or -1. */
static int own_fd(const char *p)
{
    long pid;
    int fd, n = 0;

    if ((sscanf(p, "/proc/self/fd/%d%n", &fd, &n) == 1 ||
         sscanf(p, "/dev/fd/%d%n", &fd, &n) == 1) &&
        p[n] == '\0' && fd >= 0)
        return fd;
    n = 0;
    if (sscanf(p, "/proc/%ld/fd/%d%n", &pid, &fd, &n) == 2 && p[n] == '\0' &&
        pid == (long)getpid() && fd >= 0)
        return fd;
    return -1;
}

/* The target of the symlink at link: its text, relative to link's
 * directory when it is relative.  NULL with errno set on failure. */
static char *link_target(const char *link)
{
    size_t cap = 256;
    char *buf = NULL, *p, *out;
    const char *slash;
    ssize_t n;

    for (;;) {
        p = realloc(buf, cap);
        if (!p) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
        buf = p;
        n = readlink(link, buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap)
            break;
        cap *= 2;
    }
    buf[n] = '\0';
    slash = strrchr(link, '/');
    if (buf[0] == '/' || !slash)
        return buf;
    out = malloc((size_t)(slash - link) + 1 + (size_t)n + 1);
    if (!out) {
        free(buf);
        errno = ENOMEM;
        return NULL;
    }
    sprintf(out, "%.*s/%s", (int)(slash - link), link, buf);
    free(buf);
    return out;
}

/* The mode a new file gets: 0666 less the umask. */
static mode_t new_file_mode(void)
{
    mode_t mask = umask(0); /* the command is single-threaded */
    umask(mask);
    return 0666 & ~mask;
}

/* Decide how to write f->path (see above). */
static sc_status resolve_output(out_file *f, sc_error *err)
{
    struct stat st;
    char *p = strdup(f->path), *next;
    int depth;

    if (!p)
        return out_of_memory(err);
    for (depth = 0;; depth++) {
        if (lstat(p, &st) != 0) {
            if (errno != ENOENT) {
                free(p);
                return io_error(err, "cannot write '%s': %s", f->path, errno);
            }
            /* a new file (or a dangling link's target) */
            f->target = p;
            f->mode = new_file_mode();
            return SC_OK;
        }
        if (!S_ISLNK(st.st_mode))
            break;
        if (in_proc(p)) {
            f->target = p;
            f->through = true;
            f->fd = own_fd(p);
            return SC_OK;
        }
        if (depth == 40) {
            free(p);
            return io_error(err, "cannot write '%s': %s", f->path, ELOOP);
        }
        next = link_target(p);
        free(p);
        if (!next)
            return io_error(err, "cannot write '%s': %s", f->path, errno);
        p = next;
    }
    f->target = p;
    if (S_ISDIR(st.st_mode)) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message,
                 "cannot write '%s': it is a directory (give a file name)",
                 f->path);
        return SC_ERR_IO;
    }
    if (S_ISREG(st.st_mode))
        f->mode = st.st_mode & 0777;
    else
        f->through = true;
    return SC_OK;
}

/* Write all of data to fd; false with errno set on failure. */
static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Create a new temporary file beside f->target with f->mode, open for
 * writing in *fd; f->tmp receives its name.  Nothing is left behind on
 * failure. */
static sc_status create_staged(out_file *f, int *out_fd, sc_error *err)
{
    int fd = -1, tries, e;

    f->tmp = malloc(strlen(f->target) + 40);
    if (!f->tmp)
        return out_of_memory(err);
    for (tries = 0; fd < 0 && tries < 100; tries++) {
        sprintf(f->tmp, "%s.tmp%ld.%d", f->target, (long)getpid(), tries);
        /* the mode is applied at creation (the umask applies too), then
         * set exactly: a file it replaces keeps its mode */
        fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  f->mode & 0777);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        e = errno;
        free(f->tmp);
        f->tmp = NULL;
        return io_error(err, "cannot create a file beside '%s': %s", f->path,
                        e);
    }
    if (fchmod(fd, f->mode) != 0) {
        e = errno;
        close(fd);
        unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
        return io_error(err, "cannot write '%s': %s", f->path, e);
    }
    *out_fd = fd;
    return SC_OK;
}

/* Write data to a new temporary file beside f->target (create_staged).
 * Nothing is left behind on failure. */
static sc_status stage_file(out_file *f, const char *data, size_t len,
                            sc_error *err)
{
    int fd = -1, e;

    SC_TRY(create_staged(f, &fd, err));
    if (!write_all(fd, data, len)) {
        e = errno;
        close(fd);
        goto fail;
    }
    if (close(fd) != 0) {
        e = errno;
        goto fail;
    }
    return SC_OK;
fail:
    unlink(f->tmp);
    free(f->tmp);
    f->tmp = NULL;
    return io_error(err, "cannot write '%s': %s", f->path, e);
}

/* Open f->target as it is (a device, a FIFO, ...) and write data to it. */
static sc_status write_through(const out_file *f, const char *data,
                               size_t len, sc_error *err)
{
    int fd, e;

    if (f->fd >= 0) {
        fflush(stdout); /* what the command printed comes first */
        if (!write_all(f->fd, data, len))
            return io_error(err, "cannot write '%s': %s", f->path, errno);
        return SC_OK;
    }
    fd = open(f->target, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return io_error(err, "cannot open '%s': %s", f->path, errno);
    if (!write_all(fd, data, len)) {
        e = errno;
        close(fd);
        return io_error(err, "cannot write '%s': %s", f->path, e);
    }
    if (close(fd) != 0)
        return io_error(err, "cannot write '%s': %s", f->path, errno);
    return SC_OK;
}

static sc_status write_stdout(const char *data, size_t len, sc_error *err)
{
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
        err->code = SC_ERR_IO;
        snprintf(err->message, sizeof err->message,
                 "cannot write to standard output: %s", strerror(errno));
        return SC_ERR_IO;
    }
    return SC_OK;
}

sc_status cli_write_file(const char *path, const char *data, size_t len,
                         sc_error *err)
{
    return cli_write_files(1, &path, &data, &len, err);
}

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

sc_status cli_write_files(size_t n, const char *const *paths,
                          const char *const *data, const size_t *lens,
                          sc_error *err)
{
    out_file *f;
    size_t i;
    sc_status status = SC_OK;

    sc_error_init(err);
    cli_progress_done(); /* before standard output, which may be the same
                            terminal */
    if (cli_verbosity() > 0) {
        size_t total = 0;
        for (i = 0; i < n; i++)
            total += lens[i];
        cli_phasef("computed %zu output%s: %zu bytes", n, n == 1 ? "" : "s",
                   total);
    }
    f = calloc(n ? n : 1, sizeof *f);
    if (!f)
        return out_of_memory(err);
    /* how to write each file; every regular one first to a temporary
     * beside it (the first failure removes them all) */
    for (i = 0; i < n; i++) {
        if (is_stdout(paths[i]))
            continue;
        f[i].path = paths[i];
        f[i].fd = -1;
        SC_CHECK(resolve_output(&f[i], err));
    }
    for (i = 0; i < n; i++)
        if (f[i].target && !f[i].through)
            SC_CHECK(stage_file(&f[i], data[i], lens[i], err));
    /* then what cannot be undone: devices, FIFOs, standard output */
    for (i = 0; i < n; i++)
        if (f[i].through)
            SC_CHECK(write_through(&f[i], data[i], lens[i], err));
    for (i = 0; i < n; i++)
        if (is_stdout(paths[i]))
            SC_CHECK(write_stdout(data[i], lens[i], err));
    /* and the regular files into place */
    for (i = 0; i < n; i++) {
        if (!f[i].tmp)
            continue;
        if (rename(f[i].tmp, f[i].target) != 0) {
            status = io_error(err, "cannot write '%s': %s", f[i].path, errno);
            goto fail;
        }
        free(f[i].tmp);
        f[i].tmp = NULL;
    }
    if (cli_verbosity() > 0)
        cli_phasef("wrote %s%s", n && !is_stdout(paths[0]) ? paths[0]
                                                           : "<stdout>",
                   n > 1 ? " and the other outputs" : "");
fail:
    for (i = 0; i < n; i++) {
        if (f[i].tmp) {
            unlink(f[i].tmp);
            free(f[i].tmp);
        }
        free(f[i].target);
    }
    free(f);
    return status;
}

sc_status cli_write_graph(const char *path, const sc_graph *g,
                          const sc_graph_write_options *opts, sc_error *err)
{
    out_file f;
    FILE *fp = NULL;
    int fd = -1, e = 0;
    off_t size = 0;
    sc_status st;
    char *text = NULL;
    size_t len = 0;

    memset(&f, 0, sizeof f);
    f.fd = -1;
    sc_error_init(err);
    if (!is_stdout(path)) {
        f.path = path;
        st = resolve_output(&f, err);
        if (st != SC_OK) {
            free(f.target); /* set for a directory */
            return st;
        }
    }
    if (is_stdout(path) || f.through) {
        /* written through: the whole text first, so that a failure
         * leaves nothing half-written there */
        free(f.target);
        SC_TRY(sc_graph_write_text(g, opts, &text, &len, err));
        st = cli_write_file(path, text, len, err);
        free(text);
        return st;
    }
    cli_progress_done();
    st = create_staged(&f, &fd, err);
    if (st != SC_OK) {
        free(f.target);
        return st;
    }
    fp = fdopen(fd, "w");
    if (!fp) {
        e = errno;
        close(fd);
        goto io_fail;
    }
    st = sc_graph_write_stream(g, opts, fp, err);
    if (st == SC_ERR_IO)
        e = errno ? errno : EIO;
    size = st == SC_OK ? ftello(fp) : 0;
    if (fclose(fp) != 0 && st == SC_OK) {
        e = errno;
        st = SC_ERR_IO;
    }
    if (st == SC_OK && rename(f.tmp, f.target) != 0) {
        e = errno;
        st = SC_ERR_IO;
    }
    if (st == SC_ERR_IO)
        goto io_fail;
    if (st != SC_OK)
        goto fail;
    free(f.tmp);
    free(f.target);
    if (cli_verbosity() > 0) {
        cli_phasef("computed 1 output: %lld bytes", (long long)size);
        cli_phasef("wrote %s", path);
    }
    return SC_OK;
io_fail:
    st = io_error(err, "cannot write '%s': %s", path, e);
fail:
    unlink(f.tmp);
    free(f.tmp);
    free(f.target);
    return st;
}

/* Split "a=b,c=d" items; calls fn(name, value) for each.  The text is
 * copied so that it can be cut in place.  A failing item's error is
 * located at line 1, column of the item in the text. */
typedef sc_status (*item_fn)(sc_ctx *ctx, const char *name, const char *value,
                             void *arg, sc_error *err);

static sc_status for_each_item(sc_ctx *ctx, const char *text, item_fn fn,
                               void *arg, sc_error *err)
{
    char *copy = strdup(text), *item, *save = NULL, *eq;
    sc_status status = SC_OK;

    sc_error_init(err);
    if (!copy) {
        err->code = SC_ERR_NOMEM;
        snprintf(err->message, sizeof err->message, "out of memory");
        return SC_ERR_NOMEM;
    }
    for (item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        eq = strchr(item, '=');
        if (!eq || eq == item) {
            err->code = status = SC_ERR_PARSE;
            snprintf(err->message, sizeof err->message,
                     "expected NAME=VALUE, got '%s'", item);
        } else {
            *eq = '\0';
            status = fn(ctx, item, eq + 1, arg, err);
        }
        if (status != SC_OK) {
            err->code = status;
            err->line = 1;
            err->column = (int)(item - copy) + 1;
            break;
        }
    }
    free(copy);
    return status;
}

static sc_status bind_item(sc_ctx *ctx, const char *name, const char *value,
                           void *arg, sc_error *err)
{
    sc_expr *sym = sc_expr_symbol(ctx, name);
    sc_expr *v = sym ? sc_expr_int_str(ctx, value) : NULL;
    if (!sym || !v) {
        sc_status code = sc_ctx_take_error(ctx, err);
        if (code == SC_ERR_NOMEM)
            return code;
        err->code = SC_ERR_PARSE;
        snprintf(err->message, sizeof err->message,
                 "bad binding '%s=%s': expected a symbol name and an integer",
                 name, value);
        return SC_ERR_PARSE;
    }
    if (sc_symmap_get(arg, sym)) {
        err->code = SC_ERR_INVALID;
        snprintf(err->message, sizeof err->message, "'%s' is bound twice",
                 name);
        return SC_ERR_INVALID;
    }
    return sc_symmap_set(arg, sym, v, err);
}

sc_status cli_parse_bindings(sc_ctx *ctx, const char *text, sc_symmap *map,
                             sc_error *err)
{
    return for_each_item(ctx, text, bind_item, map, err);
}

typedef struct names_arg {
    sc_expr **syms; /* the graph's symbols */
    size_t n;
} names_arg;

static sc_status name_item(sc_ctx *ctx, const char *name, const char *value,
                           void *arg, sc_error *err)
{
    const names_arg *a = arg;
    sc_expr *sym = sc_expr_symbol(ctx, name);
    size_t i;

    (void)value;
    if (!sym)
        return sc_ctx_take_error(ctx, err);
    for (i = 0; i < a->n; i++)
        if (a->syms[i] == sym)
            return SC_OK;
    err->code = SC_ERR_INVALID;
    snprintf(err->message, sizeof err->message,
             "'%s' is not a symbol of the graph", name);
    return SC_ERR_INVALID;
}

/* Add the free symbols of e to the set a (a short list: graphs have few
 * symbols); false when out of memory. */
static bool add_symbols(names_arg *a, size_t *cap, const sc_expr *e)
{
    sc_expr *buf[16], **syms = buf;
    size_t n, i, j;
    bool ok = true;

    if (!e || sc_expr_is_int(e))
        return true;
    n = sc_expr_free_symbols(e, buf, 16);
    if (n > 16) {
        syms = malloc(n * sizeof *syms);
        if (!syms)
            return false;
        sc_expr_free_symbols(e, syms, n);
    }
    for (i = 0; ok && i < n; i++) {
        for (j = 0; j < a->n && a->syms[j] != syms[i]; j++)
            ;
        if (j < a->n)
            continue;
        if (a->n == *cap) {
            void *p = realloc(a->syms, (2 * *cap + 8) * sizeof *a->syms);
            if (!p) {
                ok = false;
                break;
            }
            a->syms = p;
            *cap = 2 * *cap + 8;
        }
        a->syms[a->n++] = syms[i];
    }
    if (syms != buf)
        free(syms);
    return ok;
}

/* The symbols of g's metadata (not those that only have a hint: a hint
 * option registers its symbol in the graph). */
static bool metadata_symbols(const sc_graph *g, names_arg *a)
{
    size_t cap = 0, i, d, n = sc_graph_node_count(g);
    bool ok = true;

    a->syms = NULL;
    a->n = 0;
    for (i = 0; ok && i < n; i++) {
        sc_result r;
        sc_graph_node_result(g, (sc_node_id)i, &r);
        if (r.kind == SC_RESULT_TENSOR) {
            for (d = 0; ok && d < r.tensor.ndim; d++)
                ok = add_symbols(a, &cap, r.tensor.sizes[d]) &&
                     (!r.tensor.strides ||
                      add_symbols(a, &cap, r.tensor.strides[d]));
        } else if (r.kind == SC_RESULT_SYMINT || r.kind == SC_RESULT_SYMBOOL) {
            ok = add_symbols(a, &cap, r.expr);
        }
    }
    return ok;
}

/* The first of the names (text, or else the n symbols of hints) that is
 * not in a: SC_ERR_INVALID with its message in err. */
static sc_status find_unknown(const sc_graph *g, const char *text,
                              sc_expr *const *hints, size_t n, names_arg *a,
                              sc_error *err)
{
    size_t i;

    if (text)
        return for_each_item(sc_graph_ctx(g), text, name_item, a, err);
    for (i = 0; i < n; i++)
        SC_TRY(name_item(sc_graph_ctx(g), sc_expr_symbol_name(hints[i]), NULL,
                         a, err));
    return SC_OK;
}

/* Check the names (text, or else the n symbols of hints) against the
 * symbols of g's metadata; 0, or the exit status after printing the
 * error. */
static int check_names(const sc_graph *g, const char *cmd, const char *opt,
                       const char *text, sc_expr *const *hints, size_t n)
{
    names_arg a;
    sc_error err;
    char list[256] = "";
    size_t i, len = 0;
    sc_status st;

    sc_error_init(&err);
    if (!metadata_symbols(g, &a)) {
        free(a.syms);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    st = find_unknown(g, text, hints, n, &a, &err);
    if (st == SC_OK || st == SC_ERR_NOMEM) {
        free(a.syms);
        if (st == SC_OK)
            return 0;
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    for (i = 0; i < a.n; i++) {
        int k = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                         sc_expr_symbol_name(a.syms[i]));
        if (k < 0 || (size_t)k >= sizeof list - len - 4) {
            /* cut the list at a whole name */
            snprintf(list + len, sizeof list - len, "%s...", i ? ", " : "");
            break;
        }
        len += (size_t)k;
    }
    free(a.syms);
    return cli_usage_error(cmd, "%s: %s (its symbols: %s)", opt, err.message,
                           a.n ? list : "none");
}

int cli_check_symbol_names(const sc_graph *g, const char *cmd,
                           const char *opt, const char *text)
{
    return check_names(g, cmd, opt, text, NULL, 0);
}

static int check_hint_sizes(const sc_graph *g, const char *cmd,
                            const cli_hints *h);

int cli_check_hint_names(const sc_graph *g, const char *cmd,
                         const cli_hints *h)
{
    int rc = check_names(g, cmd, "--hint", NULL, h->syms, h->n);
    return rc ? rc : check_hint_sizes(g, cmd, h);
}

static sc_status range_item(sc_ctx *ctx, const char *name, const char *value,
                            void *arg, sc_error *err)
{
    const char *dots = strstr(value, "..");
    sc_expr *sym = sc_expr_symbol(ctx, name), *lo = NULL, *hi = NULL;
    sc_range r;
    sc_status status;
    char *lo_text;

    if (!sym) {
        sc_ctx_take_error(ctx, err);
        return err->code;
    }
    if (!dots) {
        err->code = SC_ERR_PARSE;
        snprintf(err->message, sizeof err->message,
                 "bad range '%s=%s': expected NAME=LO..HI (a side may be empty)",
                 name, value);
        return SC_ERR_PARSE;
    }
    lo_text = strndup(value, (size_t)(dots - value));
    if (!lo_text) {
        err->code = SC_ERR_NOMEM;
        return SC_ERR_NOMEM;
    }
    if (*lo_text)
        lo = sc_expr_int_str(ctx, lo_text);
    if (dots[2])
        hi = sc_expr_int_str(ctx, dots + 2);
    if ((*lo_text && !lo) || (dots[2] && !hi)) {
        free(lo_text);
        sc_ctx_take_error(ctx, err);
        snprintf(err->message, sizeof err->message,
                 "bad range '%s=%s': the bounds must be integers", name, value);
        return err->code;
    }
    free(lo_text);
    sc_range_init(&r);
    r.lo_inf = !lo;
    r.hi_inf = !hi;
    if (lo)
        sc_expr_value_mpz(lo, r.lo);
    if (hi)
        sc_expr_value_mpz(hi, r.hi);
    if (sc_range_is_empty(&r)) {
        sc_range_clear(&r);
        err->code = SC_ERR_INVALID;
        snprintf(err->message, sizeof err->message,
                 "empty range '%s=%s'", name, value);
        return SC_ERR_INVALID;
    }
    status = sc_bounds_set(arg, sym, &r, err);
    sc_range_clear(&r);
    return status;
}

sc_status cli_parse_ranges(sc_ctx *ctx, const char *text, sc_bounds *bounds,
                           sc_error *err)
{
    return for_each_item(ctx, text, range_item, bounds, err);
}

sc_graph *cli_read_graph(sc_ctx *ctx, const char *path,
                         const sc_graph_read_options *opts)
{
    sc_error err;
    sc_graph *g = NULL;
    size_t len = 0;
    char *text = cli_read_file(path, &len, &err);

    if (!text) {
        cli_report(&err);
        return NULL;
    }
    if (sc_graph_read_text(ctx, text, len,
                           strcmp(path, "-") == 0 ? "<stdin>" : path, opts,
                           &g, &err) != SC_OK) {
        cli_report(&err);
        g = NULL;
    }
    free(text);
    return g;
}

/* The value of a hint: PyTorch's sizes are int64, and a backed size is
 * never 0 or 1 (PyTorch specializes those: such a dimension is the
 * constant, not a symbol).  false with the rule in msg. */
static bool hint_value(const char *item, const char *text, size_t len,
                       int64_t *out, char *msg, size_t msgsize)
{
    int64_t v = 0;
    size_t i;

    for (i = 0; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
        if (v > (INT64_MAX - (text[i] - '0')) / 10) {
            snprintf(msg, msgsize,
                     "%s: beyond int64 (a hint is a size, and PyTorch's "
                     "sizes are int64: at most %lld)",
                     item, (long long)INT64_MAX);
            return false;
        }
        v = 10 * v + (text[i] - '0');
    }
    if (len == 0 || i < len) {
        snprintf(msg, msgsize,
                 "%s: a hint is a size, a decimal integer from 2 to %lld "
                 "(PyTorch's sizes are int64)",
                 item, (long long)INT64_MAX);
        return false;
    }
    if (v < 2) {
        snprintf(msg, msgsize,
                 "%s: a hint must be at least 2: PyTorch specializes sizes "
                 "0 and 1 (such a dimension is the constant %lld in the "
                 "graph, never a symbol)",
                 item, (long long)v);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_hints(sc_ctx *ctx, const char *text, cli_hints *h, char *msg,
                     size_t msgsize)
{
    const char *p = text;
    while (*p) {
        const char *name = p, *eq, *end = p + strcspn(p, ",");
        char buf[128], item[200];
        int64_t v;
        sc_expr *sym;
        size_t i;

        snprintf(item, sizeof item, "%.*s%s",
                 (int)(end - p > 160 ? 160 : end - p), p,
                 end - p > 160 ? "..." : "");
        eq = memchr(p, '=', (size_t)(end - p));
        if (!eq || eq == name || (size_t)(eq - name) >= sizeof buf) {
            snprintf(msg, msgsize, "'%s': expected SYMBOL=VALUE", item);
            return false;
        }
        memcpy(buf, name, (size_t)(eq - name));
        buf[eq - name] = '\0';
        if (!hint_value(item, eq + 1, (size_t)(end - eq - 1), &v, msg,
                        msgsize))
            return false;
        sym = sc_expr_symbol(ctx, buf);
        if (!sym) {
            snprintf(msg, msgsize, "%s: '%s' is not a symbol name", item, buf);
            sc_ctx_take_error(ctx, NULL);
            return false;
        }
        for (i = 0; i < h->n && h->syms[i] != sym; i++)
            ;
        if (i == h->n) {
            if (h->n == h->cap) {
                size_t ncap = h->cap ? 2 * h->cap : 8;
                sc_expr **s = realloc(h->syms, ncap * sizeof *s);
                int64_t *vv;
                if (!s) {
                    snprintf(msg, msgsize, "out of memory");
                    return false;
                }
                h->syms = s;
                vv = realloc(h->values, ncap * sizeof *vv);
                if (!vv) {
                    snprintf(msg, msgsize, "out of memory");
                    return false;
                }
                h->values = vv;
                h->cap = ncap;
            }
            h->n++;
        }
        h->syms[i] = sym;
        h->values[i] = v;
        p = *end ? end + 1 : end;
    }
    return true;
}

/* Does the tensor r mention one of h's symbols? */
static bool mentions_hint(const sc_result *r, const cli_hints *h)
{
    size_t d, i;
    for (d = 0; d < r->tensor.ndim; d++)
        for (i = 0; i < h->n; i++)
            if (sc_expr_has_symbol(r->tensor.sizes[d], h->syms[i]))
                return true;
    return false;
}

/* At the hints of g overridden by h, a tensor whose element count or byte
 * count does not fit in int64 (PyTorch computes both in int64 and fails
 * on such a tensor): 0, or the usage exit status after naming the
 * option, the node and the rule. */
static int check_hint_sizes(const sc_graph *g, const char *cmd,
                            const cli_hints *h)
{
    sc_ctx *ctx = sc_graph_ctx(g);
    sc_symmap *binding = sc_symmap_new(ctx);
    size_t ns = sc_graph_symbols(g, NULL, 0), i, d, n;
    sc_expr **syms = calloc(ns + 1, sizeof *syms);
    char opt[256] = "";
    size_t len = 0;
    sc_error err;
    int rc = 0;

    sc_error_init(&err);
    if (!binding || !syms) {
        free(syms);
        sc_symmap_free(binding);
        cli_errorf("out of memory");
        return CLI_EXIT_INPUT;
    }
    ns = sc_graph_symbols(g, syms, ns);
    for (i = 0; i < ns; i++) {
        int64_t v;
        if (sc_graph_get_hint(g, syms[i], &v) &&
            sc_symmap_set_si(binding, syms[i], v, &err) != SC_OK)
            goto nomem;
    }
    for (i = 0; i < h->n; i++)
        if (sc_symmap_set_si(binding, h->syms[i], h->values[i], &err) != SC_OK)
            goto nomem;
    n = sc_graph_node_count(g);
    for (i = 0; i < n && rc == 0; i++) {
        sc_result r;
        int64_t numel = 1, bytes, v;
        bool over = false, known = true;

        sc_graph_node_result(g, (sc_node_id)i, &r);
        if (r.kind != SC_RESULT_TENSOR || !mentions_hint(&r, h))
            continue;
        for (d = 0; d < r.tensor.ndim && known; d++) {
            sc_status st = sc_expr_eval_si(ctx, r.tensor.sizes[d], binding,
                                           &v, &err);
            if (st == SC_ERR_OVERFLOW)
                over = true;
            else if (st != SC_OK)
                known = false; /* a symbol without a hint */
            else if (!over && __builtin_mul_overflow(numel, v, &numel))
                over = true;
        }
        if (!known)
            continue;
        if (!over && !__builtin_mul_overflow(
                         numel, (int64_t)sc_dtype_itemsize(r.tensor.dtype),
                         &bytes))
            continue;
        for (d = 0; d < h->n; d++) {
            int k = snprintf(opt + len, sizeof opt - len, "%s%s=%lld",
                             d ? "," : "", sc_expr_symbol_name(h->syms[d]),
                             (long long)h->values[d]);
            if (k < 0 || (size_t)k >= sizeof opt - len)
                break;
            len += (size_t)k;
        }
        rc = cli_usage_error(
            cmd,
            "--hint %s: at these hints node '%s' has more than %lld %s: "
            "PyTorch computes a tensor's element count and byte count in "
            "int64, and they must fit",
            opt, sc_graph_node_name(g, (sc_node_id)i), (long long)INT64_MAX,
            over ? "elements" : "bytes");
    }
    free(syms);
    sc_symmap_free(binding);
    return rc;
nomem:
    free(syms);
    sc_symmap_free(binding);
    cli_errorf("out of memory");
    return CLI_EXIT_INPUT;
}

void cli_hints_free(cli_hints *h)
{
    free(h->syms);
    free(h->values);
    h->syms = NULL;
    h->values = NULL;
    h->n = h->cap = 0;
}
