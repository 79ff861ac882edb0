/* symcut — symcut's igraph section: every igraph call of the library runs
 * inside sc__igraph_section, serialized by one process-wide lock.
 *
 * Why a lock.  igraph keeps its FINALLY stack (the temporaries an igraph
 * function frees when it fails) and its error, warning and fatal-error
 * handlers in globals; a build with IGRAPH_THREAD_SAFE 1 makes them
 * thread-local, Debian's is built with 0.  Two threads inside igraph at
 * once then push and pop the same FINALLY stack, and igraph stops the
 * process ("Corrupt finally stack").  The lock makes symcut's igraph work
 * one section at a time whatever igraph was built with; it costs one
 * uncontended mutex per max-flow, so it is taken with a thread-safe
 * igraph too (IGRAPH_THREAD_SAFE, igraph_threading.h, is not consulted).
 * The lock, and the per-thread record of the section a thread is in,
 * are the library's only process-wide mutable state.
 *
 * Handlers.  The section sets igraph's handlers on entry and puts the
 * calling thread's back on exit, under the lock, rather than installing
 * them once per process: with a thread-safe igraph the handlers are
 * per-thread, so one installation would cover one thread only; a program
 * that uses igraph itself keeps its own handlers outside symcut's
 * sections; and the fatal handler below must never be in place where
 * there is no section to jump back to.
 *   - errors: the reason is kept for the message, then igraph's
 *     temporaries are freed (IGRAPH_FINALLY_FREE, what
 *     igraph_error_handler_ignore does) and the error comes back as a
 *     status, never an abort;
 *   - warnings: ignored (the partitioner's inputs are checked before);
 *   - fatal errors (igraph's internal assertions, a corrupt FINALLY
 *     stack): a fatal handler must not return, and igraph's default one
 *     aborts.  Ours long-jumps back to the sc__igraph_section that the
 *     thread is in, which reports SC_ERR_INTERNAL.  The temporaries on
 *     igraph's FINALLY stack at that moment belong to igraph frames that
 *     the jump abandoned (their addresses point into a dead stack), so
 *     they are dropped without being freed (IGRAPH_FINALLY_CLEAN): a
 *     bounded leak instead of a use of dead memory.  igraph keeps no
 *     other state between calls that symcut uses, so later sections work.
 *     The bodies symcut runs (igraph_create, igraph_maxflow, vector
 *     set-up) are igraph's C code: no C++ frame with a destructor is
 *     jumped over.
 *     A fatal error raised by a thread outside any symcut section (a
 *     program's own igraph use, with a non-thread-safe igraph, while a
 *     section is open) goes to igraph's default handler, as it would have.
 */
#include <config.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "partition/igraph-section.h"
#include "util/internal.h"

#define REASON_MAX 256

/* What the handlers record about the section the thread is in. */
typedef struct trap {
    jmp_buf jump;
    bool active;              /* the thread is inside a section */
    bool fatal;               /* the fatal handler jumped */
    igraph_error_t rc;        /* the body's result */
    char reason[REASON_MAX];  /* igraph's first non-empty reason */
    char file[REASON_MAX];
    int line;
} trap;

static pthread_mutex_t section_lock = PTHREAD_MUTEX_INITIALIZER;
/* Thread-local, not on the section's stack: what the handlers write
 * between setjmp and longjmp must stay valid after the jump. */
static _Thread_local trap current;

static void keep_reason(const char *reason, const char *file, int line)
{
    if (current.reason[0] || !reason || !reason[0])
        return;
    snprintf(current.reason, sizeof current.reason, "%s", reason);
    snprintf(current.file, sizeof current.file, "%s", file ? file : "?");
    current.line = line;
}

static void on_error(const char *reason, const char *file, int line,
                     igraph_error_t code)
{
    (void)code;
    if (current.active)
        keep_reason(reason, file, line);
    IGRAPH_FINALLY_FREE();
}

static void on_fatal(const char *reason, const char *file, int line)
{
    if (!current.active) {
        igraph_fatal_handler_abort(reason, file, line);
        abort(); /* igraph_fatal_handler_abort does not return */
    }
    current.reason[0] = '\0';
    keep_reason(reason, file, line);
    current.fatal = true;
    longjmp(current.jump, 1);
}

sc_status sc__igraph_section(sc__igraph_body *body, void *arg,
                             const char *what, sc_error *err)
{
    igraph_error_handler_t *old_error;
    igraph_warning_handler_t *old_warning;
    igraph_fatal_handler_t *old_fatal;
    int base, left;

    if (current.active)
        return sc__error_set(err, SC_ERR_INTERNAL,
                             "%s: symcut's igraph section entered twice",
                             what);
    if (pthread_mutex_lock(&section_lock) != 0)
        return sc__error_set(err, SC_ERR_INTERNAL,
                             "%s: cannot take the igraph lock", what);
    old_error = igraph_set_error_handler(on_error);
    old_warning = igraph_set_warning_handler(igraph_warning_handler_ignore);
    old_fatal = igraph_set_fatal_handler(on_fatal);
    base = IGRAPH_FINALLY_STACK_SIZE();
    current.fatal = false;
    current.rc = IGRAPH_SUCCESS;
    current.reason[0] = current.file[0] = '\0';
    current.line = 0;
    current.active = true;
    if (setjmp(current.jump) == 0)
        current.rc = body(arg);
    current.active = false;
    left = IGRAPH_FINALLY_STACK_SIZE() - base;
    if (current.fatal && left > 0)
        IGRAPH_FINALLY_CLEAN(left);
    igraph_set_fatal_handler(old_fatal);
    igraph_set_warning_handler(old_warning);
    igraph_set_error_handler(old_error);
    pthread_mutex_unlock(&section_lock);

    if (current.fatal)
        return sc__error_set(err, SC_ERR_INTERNAL,
                             "%s: igraph stopped with a fatal error at "
                             "%s:%d: %s",
                             what, current.file, current.line,
                             current.reason);
    if (current.rc == IGRAPH_SUCCESS)
        return SC_OK;
    if (current.rc == IGRAPH_ENOMEM)
        return sc__error_nomem(err);
    if (current.reason[0])
        return sc__error_set(err, SC_ERR_INTERNAL, "%s failed: %s (%s, at "
                             "%s:%d)",
                             what, igraph_strerror(current.rc),
                             current.reason, current.file, current.line);
    return sc__error_set(err, SC_ERR_INTERNAL, "%s failed: %s", what,
                         igraph_strerror(current.rc));
}
