/* emul.c: the emulated NCCL-like library of the harness tests (emul.h). */
#include "emul.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/util.h"

ht_knobs ht_knob;
ht_call *ht_calls;
long ht_ncalls;
static long calls_cap;

void ht_reset(void)
{
    memset(&ht_knob, 0, sizeof ht_knob);
    free(ht_calls);
    ht_calls = NULL;
    ht_ncalls = calls_cap = 0;
}

typedef struct ecall {
    int gpu, coll, comm, rank, k; /* k: its index among the rank's calls on comm */
    int done;
    long issue;                   /* GPU-wide issue order */
} ecall;

typedef struct estate {
    const dr_setup *S;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ecall *call; /* [nparts], by part */
    int *issued; /* [nparts] */
    int **seq;   /* [ncomms][ranks]: calls so far */
    int ncomms;
    long *gpu_issues;
    void **recv; /* [nparts] outputs */
    int aborted;
} estate;

static int comm_of(const estate *E, int coll)
{
    return E->S->coll_comm[coll];
}

static const dl_group *comm_group(const estate *E, int comm)
{
    return dr_comm_members(E->S, comm);
}

static int esetup(void **state, const dr_setup *S, char *err, size_t errlen)
{
    const dl_layout *L = S->L;
    estate *E = dl_xcalloc(1, sizeof *E);
    *state = E;
    E->S = S;
    pthread_mutex_init(&E->mu, NULL);
    pthread_cond_init(&E->cv, NULL);
    E->call = dl_xcalloc((size_t)L->nparts, sizeof *E->call);
    E->issued = dl_xcalloc((size_t)L->nparts, sizeof *E->issued);
    E->recv = dl_xcalloc((size_t)L->nparts, sizeof *E->recv);
    E->gpu_issues = dl_xcalloc((size_t)L->ngpus, sizeof *E->gpu_issues);
    E->ncomms = S->ncomms;
    E->seq = dl_xcalloc((size_t)E->ncomms, sizeof *E->seq);
    for (int k = 0; k < E->ncomms; k++)
        E->seq[k] = dl_xcalloc((size_t)comm_group(E, k)->n, sizeof **E->seq);
    for (int p = 0; p < L->nparts; p++)
        E->recv[p] = dl_xcalloc(ck_recv_bytes(&S->coll[L->part_coll[p]]) + 1, 1);
    (void)err, (void)errlen;
    return 0;
}

static void log_call(int gpu, int coll)
{
    if (ht_ncalls == calls_cap) {
        calls_cap = calls_cap ? 2 * calls_cap : 256;
        ht_calls = dl_xrealloc(ht_calls, (size_t)calls_cap * sizeof *ht_calls);
    }
    ht_calls[ht_ncalls++] = (ht_call){gpu, coll};
}

/* Can this issued call run now (its stream lets it)? */
static int can_run(const estate *E, const ecall *x)
{
    if (E->S->stream_per_coll)
        return 1;
    const dl_layout *L = E->S->L;
    for (int q = L->plan_off[x->gpu]; q < L->plan_off[x->gpu + 1]; q++) {
        const dl_plan_entry *pe = &L->plan[q];
        int p = L->part_off[pe->coll] + pe->member;
        if (E->issued[p] && !E->call[p].done && E->call[p].issue < x->issue)
            return 0;
    }
    return 1;
}

/* The call of rank r on comm with index k, or NULL. */
static ecall *find_call(estate *E, int comm, int r, int k)
{
    const dl_layout *L = E->S->L;
    int gpu = comm_group(E, comm)->gpus[r];
    for (int q = L->plan_off[gpu]; q < L->plan_off[gpu + 1]; q++) {
        const dl_plan_entry *pe = &L->plan[q];
        int p = L->part_off[pe->coll] + pe->member;
        ecall *x = &E->call[p];
        if (E->issued[p] && x->comm == comm && x->k == k)
            return x;
    }
    return NULL;
}

/* Runs instance (comm, k) if every rank's call can run; returns 1 if it ran. */
static int try_instance(estate *E, int comm, int k)
{
    const dl_layout *L = E->S->L;
    const dl_group *g = comm_group(E, comm);
    ecall *m[64];
    if (g->n > 64)
        return 0;
    for (int r = 0; r < g->n; r++)
        if (!(m[r] = find_call(E, comm, r, k)) || m[r]->done || !can_run(E, m[r]))
            return 0;
    for (int r = 0; r < g->n; r++) {
        const ck_coll *cc = &E->S->coll[m[r]->coll];
        float *out = E->recv[L->part_off[m[r]->coll] + m[r]->rank];
        for (size_t i = 0; i < cc->count; i++) {
            float sum = 0;
            for (int s = 0; s < g->n; s++) {
                float v;
                ck_input_elem(&E->S->coll[m[s]->coll], s, E->S->seed + (uint64_t)m[s]->coll, i, &v);
                sum += v;
            }
            out[i] = sum;
        }
    }
    for (int r = 0; r < g->n; r++)
        m[r]->done = 1;
    return 1;
}

static void progress(estate *E)
{
    if (ht_knob.never_complete)
        return;
    const dl_layout *L = E->S->L;
    for (int again = 1; again;) {
        again = 0;
        for (int p = 0; p < L->nparts; p++)
            if (E->issued[p] && !E->call[p].done && try_instance(E, E->call[p].comm, E->call[p].k))
                again = 1;
    }
    pthread_cond_broadcast(&E->cv);
}

static int einvoke(void *state, int gpu, int coll, char *err, size_t errlen)
{
    estate *E = state;
    const dl_layout *L = E->S->L;
    pthread_mutex_lock(&E->mu);
    log_call(gpu, coll);
    if (ht_knob.fail_at && ht_ncalls == ht_knob.fail_at) {
        pthread_mutex_unlock(&E->mu);
        return dl_fail(err, errlen, "planted failure at call %ld", ht_ncalls);
    }
    int m = dl_layout_member(L, coll, gpu), p = dr_part(L, gpu, coll);
    int comm = comm_of(E, coll);
    int rank = m; /* a communicator's ranks are its group's members, in order */
    E->call[p] = (ecall){gpu, coll, comm, rank, E->seq[comm][rank]++, 0, E->gpu_issues[gpu]++};
    E->issued[p] = 1;
    progress(E);
    pthread_mutex_unlock(&E->mu);
    return 0;
}

static int pending(const estate *E, int gpu)
{
    const dl_layout *L = E->S->L;
    for (int q = L->plan_off[gpu]; q < L->plan_off[gpu + 1]; q++) {
        int p = L->part_off[L->plan[q].coll] + L->plan[q].member;
        if (E->issued[p] && !E->call[p].done)
            return 1;
    }
    return 0;
}

static int esync(void *state, int gpu, char *err, size_t errlen)
{
    estate *E = state;
    pthread_mutex_lock(&E->mu);
    log_call(gpu, -1);
    while (pending(E, gpu) && !E->aborted)
        pthread_cond_wait(&E->cv, &E->mu);
    int aborted = E->aborted;
    pthread_mutex_unlock(&E->mu);
    return aborted ? dl_fail(err, errlen, "aborted") : 0;
}

static int edone(void *state, int gpu, int coll, char *err, size_t errlen)
{
    estate *E = state;
    const dl_layout *L = E->S->L;
    pthread_mutex_lock(&E->mu);
    int d = E->call[dr_part(L, gpu, coll)].done;
    pthread_mutex_unlock(&E->mu);
    (void)err, (void)errlen;
    return d;
}

static void eabort(void *state)
{
    estate *E = state;
    pthread_mutex_lock(&E->mu);
    E->aborted = 1;
    pthread_cond_broadcast(&E->cv);
    pthread_mutex_unlock(&E->mu);
}

static int eoutput(void *state, int gpu, int coll, void *host, char *err, size_t errlen)
{
    estate *E = state;
    const dl_layout *L = E->S->L;
    memcpy(host, E->recv[dr_part(L, gpu, coll)],
           ck_recv_bytes(&E->S->coll[coll]));
    (void)err, (void)errlen;
    return 0;
}

static void eteardown(void *state, int aborted)
{
    estate *E = state;
    if (!E)
        return;
    for (int p = 0; p < E->S->L->nparts; p++)
        free(E->recv[p]);
    for (int k = 0; k < E->ncomms; k++)
        free(E->seq[k]);
    free(E->seq);
    free(E->recv);
    free(E->call);
    free(E->issued);
    free(E->gpu_issues);
    pthread_mutex_destroy(&E->mu);
    pthread_cond_destroy(&E->cv);
    free(E);
    (void)aborted;
}

const dr_lib ht_emul = {"emul", esetup, einvoke, esync, edone, NULL, eabort, eoutput, NULL,
                        eteardown};
