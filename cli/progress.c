/* symcut — the command-line tool's progress reports (cli/progress.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/progress.h"

/* The command line tool's own state, as its verbosity (util.c). */
static int requested;            /* 1 --progress, -1 --no-progress */
static int on_terminal = -1;     /* standard error is a terminal (-1: not
                                  * asked yet) */
static double start_time = -1.0; /* cli_progress_start */
static double last_draw;         /* the terminal line's last drawing */
static char phase_now[256];      /* the phase reported last ("": none) */
static int tenths;               /* line form: the tenths printed of it */
static bool shown;               /* a terminal line is on the screen */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_progress_option(const char *arg)
{
    if (strcmp(arg, "--progress") == 0)
        requested = 1;
    else if (strcmp(arg, "--no-progress") == 0)
        requested = -1;
    else
        return false;
    return true;
}

void cli_progress_start(void)
{
    start_time = now();
}

static bool terminal(void)
{
    if (on_terminal < 0)
        on_terminal = isatty(STDERR_FILENO) ? 1 : 0;
    return on_terminal == 1;
}

bool cli_progress_enabled(void)
{
    if (requested < 0 || cli_verbosity() < 0)
        return false;
    return requested > 0 || terminal();
}

/* On a terminal without --progress, nothing shows in the first second. */
static bool too_early(double t)
{
    if (requested > 0)
        return false;
    if (start_time < 0)
        start_time = t;
    return t - start_time < 1.0;
}

static bool same_phase(const char *phase)
{
    return phase_now[0] && strncmp(phase_now, phase, sizeof phase_now - 1) == 0;
}

/* The percentage of done in total, 0..100 (total > 0). */
static int percent(size_t done, size_t total)
{
    if (done >= total)
        return 100;
    return (int)((double)done * 100.0 / (double)total);
}

void cli_progress_clear(void)
{
    if (!shown)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    shown = false;
}

void cli_progress(void *user, const char *phase, size_t done, size_t total)
{
    double t;
    bool fresh = false;
    (void)user;
    if (!phase || !cli_progress_enabled())
        return;
    if (!same_phase(phase)) {
        snprintf(phase_now, sizeof phase_now, "%s", phase);
        tenths = -1;
        fresh = true;
    }
    if (!terminal()) {
        int p = total ? percent(done, total) / 10 : 0;
        if (p <= tenths)
            return;
        tenths = p;
        if (total)
            fprintf(stderr, "symcut: %s: %d%%\n", phase, 10 * p);
        else
            fprintf(stderr, "symcut: %s\n", phase);
        return;
    }
    t = now();
    if (too_early(t))
        return;
    if (total && done >= total) { /* the phase ended */
        cli_progress_clear();
        return;
    }
    if (shown && !fresh && t - last_draw < 0.1)
        return; /* a new phase shows at once, its updates ten times a
                   second */
    if (total)
        fprintf(stderr, "\rsymcut: %s: %d%%\033[K", phase,
                percent(done, total));
    else if (done)
        fprintf(stderr, "\rsymcut: %s: %zu\033[K", phase, done);
    else
        fprintf(stderr, "\rsymcut: %s...\033[K", phase);
    fflush(stderr);
    shown = true;
    last_draw = t;
}

void cli_progress_phase(const char *phase)
{
    cli_progress(NULL, phase, 0, 0);
}

void cli_progress_done(void)
{
    cli_progress_clear();
    phase_now[0] = '\0';
}
