/* symcut — what the partitioner's phases share: growable id lists, the
 * phase clock and the result's warnings. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "partition/partition-internal.h"

bool sc__idlist_push(sc__idlist *l, sc_node_id id)
{
    if (l->n == l->cap &&
        !sc__grow((void **)&l->ids, &l->cap, l->n + 1, sizeof *l->ids))
        return false;
    l->ids[l->n++] = id;
    return true;
}

void sc__idlist_free(sc__idlist *l)
{
    sc__free(l->ids);
    l->ids = NULL;
    l->n = l->cap = 0;
}

double sc__partition_now(void)
{
    struct timespec ts;
    /* CPU time of the calling thread: the partitioner is single-threaded,
     * and on a loaded machine wall-clock time says little. */
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool sc__partition_warn(sc_partition *p, const char *fmt, ...)
{
    va_list ap;
    sc__buf b;
    char *s;
    if (p->nwarnings == p->warnings_cap &&
        !sc__grow((void **)&p->warnings, &p->warnings_cap, p->nwarnings + 1,
                  sizeof *p->warnings))
        return false;
    sc__buf_init(&b);
    va_start(ap, fmt);
    {
        char tmp[512];
        vsnprintf(tmp, sizeof tmp, fmt, ap);
        sc__buf_puts(&b, tmp);
    }
    va_end(ap);
    s = sc__buf_take(&b);
    if (!s)
        return false;
    p->warnings[p->nwarnings++] = s;
    return true;
}
