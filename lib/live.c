/* The set of live communicators: every API call checks its handle here
 * before touching it, and holds the communicator until it returns. */
#include <stdlib.h>

#include "internal.h"

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
/* A handle is checked against this set before it is touched, so a call on a
 * destroyed (or made-up) communicator is an error, not a crash. */
static pcclComm_t *live;
static int nlive, caplive;

int pccl_live_add(pcclComm_t c)
{
    pthread_mutex_lock(&live_mu);
    if (nlive == caplive) {
        int cap = caplive ? 2 * caplive : 16;
        pcclComm_t *p = realloc(live, (size_t)cap * sizeof *p);
        if (!p) { pthread_mutex_unlock(&live_mu); return -1; }
        live = p;
        caplive = cap;
    }
    live[nlive++] = c;
    pthread_mutex_unlock(&live_mu);
    return 0;
}

int pccl_live_del(pcclComm_t c)
{
    int found = 0;
    pthread_mutex_lock(&live_mu);
    for (int i = 0; i < nlive; i++)
        if (live[i] == c) { live[i] = live[--nlive]; found = 1; break; }
    if (!nlive) { free(live); live = NULL; caplive = 0; }
    pthread_mutex_unlock(&live_mu);
    return found;
}

/* A call holds the communicator (users > 0) from its check to its return, so
 * destroy can wait for calls still inside (a pcclWait woken by the abort, say)
 * before it frees anything. */
static pthread_cond_t live_cv = PTHREAD_COND_INITIALIZER;

int pccl_live_enter(pcclComm_t c)
{
    int found = 0;
    pthread_mutex_lock(&live_mu);
    for (int i = 0; i < nlive && !found; i++) found = live[i] == c;
    if (found) c->users++;
    pthread_mutex_unlock(&live_mu);
    return found;
}

void pccl_live_exit(pcclComm_t *cp)
{
    pthread_mutex_lock(&live_mu);
    if (--(*cp)->users == 0) pthread_cond_broadcast(&live_cv);
    pthread_mutex_unlock(&live_mu);
}

void pccl_live_drain(pcclComm_t c)
{
    pthread_mutex_lock(&live_mu);
    while (c->users) pthread_cond_wait(&live_cv, &live_mu);
    pthread_mutex_unlock(&live_mu);
}
