/* mproc.c: see mproc.h.  A rank's life: join, register, random-order
 * invocations (optionally a device synchronization after each) checked
 * exactly, destroy; with a fault, the victim kills or stops itself at a
 * random point of one phase, and the survivors must get an error, fail over
 * (pcclCommShrink, or a re-init when the init itself failed), and complete
 * the next collectives exactly, leaving no thread or mapping behind. */
#include "mproc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

static void *h_alloc(size_t n) { return malloc(n ? n : 1); }
static void h_put(void *d, const void *h, size_t n) { memcpy(d, h, n); }
static const mp_mem host_mem = {h_alloc, free, h_put, h_put};
const mp_mem *mp_mem_ops = &host_mem;

#define MP_NC 5
#define REPORT_FD 3

/* ---- the child ------------------------------------------------------------- */

typedef struct {
    const mp_opts *o;
    mp_report *rep;
    uint64_t rng;
    int fault_at_it, fault_at_k; /* the victim's point in its phase */
    int fired;
} child;

static void fault_now(const mp_opts *o)
{
    dprintf(REPORT_FD, "F %.6f\n", ck_now());
    kill(getpid(), o->kind == MP_KILL ? SIGKILL : SIGSTOP);
}

typedef struct {
    const mp_opts *o;
    long us;
} fault_arg;

static void *fault_thread(void *p)
{
    fault_arg a = *(fault_arg *)p;
    free(p);
    ck_sleep_us(a.us);
    fault_now(a.o);
    return NULL;
}

/* The victim faults `us` microseconds from now, from another thread: at a
 * point of its own choosing, not one the test code reaches. */
static void arm(child *ch, long us)
{
    if (ch->fired++) return;
    fault_arg *a = malloc(sizeof *a);
    a->o = ch->o;
    a->us = us;
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &at, fault_thread, a);
    pthread_attr_destroy(&at);
}

static int victim_in(child *ch, int phase) { return ch->o->victim == ch->o->rank && ch->o->phase == phase; }

/* The first error of the run is the one reported. */
static int note(child *ch, pcclResult_t r, pcclComm_t c, const char *what)
{
    if (r == pcclSuccess) return 0;
    if (!ch->rep->err) {
        ch->rep->err = r;
        ch->rep->t_err = ck_now();
        snprintf(ch->rep->msg, sizeof ch->rep->msg, "%s: %s: %s", what, pcclGetErrorString(r), pcclGetLastError(c));
    }
    return 1;
}

static void wrong(child *ch, const char *fmt, ...)
{
    va_list ap;
    if (!ch->rep->wrong++) {
        va_start(ap, fmt);
        vsnprintf(ch->rep->msg, sizeof ch->rep->msg, fmt, ap);
        va_end(ap);
    }
}

static void shapes(ck_coll *cc, int n)
{
    const ck_coll s[MP_NC] = {
        {pcclCollAllReduce, pcclInt32, pcclSum, 0, 300, n},  {pcclCollAllGather, pcclFloat, pcclSum, 0, 37, n},
        {pcclCollReduceScatter, pcclInt64, pcclMax, 0, 50, n}, {pcclCollReduce, pcclUint8, pcclProd, n - 1, 129, n},
        {pcclCollBroadcast, pcclDouble, pcclSum, 0, 70, n},
    };
    memcpy(cc, s, sizeof s);
}

static pcclResult_t reg(pcclComm_t c, const ck_coll *k, int *id)
{
    switch (k->type) {
    case pcclCollAllReduce: return pcclRegisterAllReduce(c, k->count, k->dtype, k->op, 0, id);
    case pcclCollAllGather: return pcclRegisterAllGather(c, k->count, k->dtype, 0, id);
    case pcclCollReduceScatter: return pcclRegisterReduceScatter(c, k->count, k->dtype, k->op, 0, id);
    case pcclCollReduce: return pcclRegisterReduce(c, k->count, k->dtype, k->op, k->root, 0, id);
    default: return pcclRegisterBroadcast(c, k->count, k->dtype, k->root, 0, id);
    }
}

/* ---- a starved rank: runnable, but its CPU taken --------------------------- */

void *mp_spin_until(void *p)
{
    double until = *(const double *)p;
    while (ck_now() < until) {
    }
    return NULL;
}

int mp_thread_cpu0(pthread_t *t, int fifo, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    pthread_attr_init(&a);
    pthread_attr_setaffinity_np(&a, sizeof set, &set);
    if (fifo) {
        struct sched_param sp = {.sched_priority = 1};
        pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&a, SCHED_FIFO);
        pthread_attr_setschedparam(&a, &sp);
    }
    int e = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return e;
}

/* Takes CPU 0 from this process's threads (pinned there: mp_child_main) for
 * ms: a SCHED_FIFO thread spins on it.  The kernel's real-time throttle
 * (950 ms in every second by default) leaves the others 50 ms a second, so
 * the longest silence is 950 ms or more.  0, or an errno. */
static int starve(int ms)
{
    double until = ck_now() + ms / 1000.0;
    pthread_t t;
    int e = mp_thread_cpu0(&t, 1, mp_spin_until, &until);
    if (!e) pthread_join(t, NULL);
    return e;
}

/* 0 if this process may start a SCHED_FIFO thread, else an errno. */
static int may_starve(void) { return starve(1); }

/* Register, then iterations of every collective in a random order per rank,
 * each result checked exactly.  1 if a call failed (noted). */
static int workload(child *ch, pcclComm_t c, int n, int rank, int faulty)
{
    const mp_opts *o = ch->o;
    ck_coll cc[MP_NC];
    int ids[MP_NC], order[MP_NC], fail = 0;
    void *buf[MP_NC][2], *dbuf[MP_NC][2]; /* host staging, and the collective's (mp_mem_ops) */
    const mp_mem *m = mp_mem_ops;
    shapes(cc, n);
    for (int k = 0; k < MP_NC; k++) {
        buf[k][0] = malloc(ck_send_bytes(&cc[k]));
        buf[k][1] = malloc(ck_recv_bytes(&cc[k]));
        dbuf[k][0] = m->alloc(ck_send_bytes(&cc[k]));
        dbuf[k][1] = m->alloc(ck_recv_bytes(&cc[k]));
    }
    for (int k = 0; k < MP_NC && !fail; k++) {
        if (faulty && victim_in(ch, MP_PH_REGISTER) && k == ch->fault_at_k) fault_now(o);
        fail = note(ch, reg(c, &cc[k], &ids[k]), c, "register");
    }
    for (int it = 0; it < o->iters && !fail; it++) {
        uint64_t seed = o->seed * 7919 + (uint64_t)it * MP_NC;
        if (o->slow_ms && rank == n - 1) ck_sleep_ms(o->slow_ms); /* computing, alive */
        for (int k = 0; k < MP_NC; k++) {
            ck_prepare(&cc[k], rank, seed + (uint64_t)k, 0, buf[k][0], buf[k][1]);
            m->put(dbuf[k][0], buf[k][0], ck_send_bytes(&cc[k]));
            m->put(dbuf[k][1], buf[k][1], ck_recv_bytes(&cc[k]));
            order[k] = k;
        }
        ck_shuffle(order, MP_NC, (o->seed << 20) ^ ((uint64_t)it << 8) ^ (uint64_t)rank);
        for (int i = 0; i < MP_NC && !fail; i++) {
            int k = order[i], at = faulty && it == ch->fault_at_it && i == ch->fault_at_k;
            fail = note(ch, pcclRun(c, ids[k], dbuf[k][0], dbuf[k][1], NULL, NULL), c, "pcclRun");
            if (at && victim_in(ch, MP_PH_COLL)) arm(ch, (long)(ck_rand(&ch->rng) % 300));
            if (at && victim_in(ch, MP_PH_SYNC)) arm(ch, (long)(ck_rand(&ch->rng) % 100));
            /* An armed fault that has not landed yet (its thread not run on
             * a busy machine) lands with this invocation in flight: the
             * phase stays bounded. */
            if (faulty && ch->fired && it > ch->fault_at_it + 1)
                for (;;) ck_sleep_ms(1000);
            if (!fail && o->sync) fail = note(ch, pcclDeviceSynchronize(c), c, "pcclDeviceSynchronize");
        }
        if (!fail && o->starve_ms && rank == n - 1 && it == 0 && starve(o->starve_ms))
            wrong(ch, "rank %d: no SCHED_FIFO thread to starve it", rank);
        if (!fail) fail = note(ch, pcclWaitAll(c), c, "pcclWaitAll");
        for (int k = 0; k < MP_NC && !fail; k++) {
            char msg[256];
            m->get(buf[k][1], dbuf[k][1], ck_recv_bytes(&cc[k]));
            if (ck_verify(&cc[k], rank, seed + (uint64_t)k, 0, buf[k][1], msg, sizeof msg))
                wrong(ch, "rank %d iteration %d: %s", rank, it, msg);
        }
    }
    for (int k = 0; k < MP_NC; k++)
        for (int j = 0; j < 2; j++) {
            free(buf[k][j]);
            m->release(dbuf[k][j]);
        }
    return fail;
}

/* mp_leave_case's run, one rank: 0 when it is to destroy, 2 to abort (rank
 * 0, after the all-reduce that fails), 1 if a call failed that should not
 * have. */
#define LEAVE_LATE_MS 3000
static int leave_early(child *ch, pcclComm_t c)
{
    const int rank = ch->o->rank;
    const ck_coll bc = {pcclCollBroadcast, pcclInt32, pcclSum, 1, 256, 3};
    const ck_coll ar = {pcclCollAllReduce, pcclInt32, pcclSum, 0, 256, 3};
    int32_t send[256], recv[256], got[256];
    int idb, ida, fail = note(ch, reg(c, &bc, &idb), c, "register broadcast");
    if (!fail) fail = note(ch, reg(c, &ar, &ida), c, "register all-reduce");
    if (fail) return 1;
    ck_prepare(&bc, rank, 5, 0, send, recv);
    if (rank == 2) ck_sleep_ms(LEAVE_LATE_MS); /* computing, alive: rank 1 leaves meanwhile */
    if (rank == 1) setenv("PCCL_BOOT_TIMEOUT", "1", 1); /* its destroy waits 1 s for the others */
    fail = note(ch, pcclRun(c, idb, send, recv, NULL, NULL), c, "pcclRun broadcast");
    if (!fail) fail = note(ch, pcclWait(c, idb), c, "pcclWait broadcast");
    if (fail) return 1;
    char msg[256];
    memcpy(got, recv, sizeof got);
    if (ck_verify(&bc, rank, 5, 0, got, msg, sizeof msg)) wrong(ch, "rank %d broadcast: %s", rank, msg);
    if (rank != 0) return 0; /* rank 2 destroys too: a clean leave, waiting for rank 0 */
    /* One invocation past rank 1's: its leaving is a failure now. */
    ck_prepare(&ar, rank, 6, 0, send, recv);
    double t0 = ck_now();
    pcclResult_t r = pcclRun(c, ida, send, recv, NULL, NULL);
    if (!r) r = pcclWait(c, ida);
    if (r != pcclRemoteError || !strstr(pcclGetLastError(c), "rank 1"))
        wrong(ch, "rank %d: the all-reduce rank 1 never joined returned %s after %.1f s: %s", rank,
              pcclGetErrorString(r), ck_now() - t0, pcclGetLastError(c));
    return 2;
}

/* pccl's threads (named pccl-*): the ones a communicator may leave behind. */
static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (!f) continue;
        n += fgets(name, sizeof name, f) && !strncmp(name, "pccl-", 5);
        fclose(f);
    }
    closedir(d);
    return n;
}

static int count_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) n += strstr(line, "/dev/shm/pccl-") != NULL;
    fclose(f);
    return n;
}

static void run_child(child *ch)
{
    const mp_opts *o = ch->o;
    mp_report *rep = ch->rep;
    pcclConfig_t cfg = PCCL_CONFIG_INITIALIZER;
    cfg.backend = o->backend;
    cfg.blocks = 2;
    cfg.chunkBytes = 512;
    cfg.arenaBytes = 4L << 20;
    cfg.maxColls = 64;
    cfg.peerTimeoutMs = o->timeout_ms;
    cfg.chaos = o->chaos;
    cfg.chaosSeed = (long)(o->seed & 0xffff) + 1;
    cfg.quitUs = 500;
    /* randorder.c's thresholds for 2 shared cores (the defaults make each
     * mismatch cost tens of ms here). */
    cfg.spinHead = 50;
    cfg.spinBase = 20;
    cfg.spinMin = 2;
    cfg.sticky = 4;
    pcclComm_t c = NULL, c2 = NULL;
    int faulty = o->victim == o->rank;
    if (faulty && o->phase == MP_PH_INIT) arm(ch, (long)(ck_rand(&ch->rng) % 3000));
    pcclResult_t r = pcclCommInitRankConfig(&c, o->nranks, o->id, o->rank, &cfg);
    int n2 = o->nranks - 1, rank2 = o->rank - (o->victim >= 0 && o->victim < o->rank);
    /* Survivors meet again after their errors, which come up to a boot
     * timeout apart (one that saw the victim die, one that waited for it
     * to join): the recovery's rendezvous allows for that. */
    int failed_init = note(ch, r, NULL, "pcclCommInitRank");
    setenv("PCCL_BOOT_TIMEOUT", "8", 1);
    if (failed_init) {
        /* No communicator to shrink: the application's re-init path, a new id
         * among the survivors. */
        if (o->victim >= 0 && !faulty && (r = pcclCommInitRankConfig(&c2, n2, o->reinit, rank2, &cfg)))
            wrong(ch, "re-init after a failed init -> %s: %s", pcclGetErrorString(r), pcclGetLastError(NULL));
    } else if (o->leave_early) {
        int lr = leave_early(ch, c);
        if (lr == 2 && (r = pcclCommAbort(c))) wrong(ch, "pcclCommAbort -> %s", pcclGetErrorString(r));
        if (lr == 0 && (r = pcclCommDestroy(c))) wrong(ch, "pcclCommDestroy -> %s", pcclGetErrorString(r));
        if (lr == 1) pcclCommAbort(c);
    } else if (workload(ch, c, o->nranks, o->rank, faulty)) {
        pcclResult_t ae = pcclSuccess;
        pcclCommGetAsyncError(c, &ae);
        pcclCommGetFailedRanks(c, rep->failed, &rep->nfailed);
        if (ae != pcclRemoteError) wrong(ch, "pcclCommGetAsyncError -> %d after %s", ae, rep->msg);
        char who[32];
        snprintf(who, sizeof who, "rank %d", o->victim);
        if (!strstr(pcclGetLastError(c), who) || !strstr(pcclGetLastError(c), "collective"))
            wrong(ch, "pcclGetLastError names neither the victim (%s) nor a collective: %s", who, pcclGetLastError(c));
        if (o->victim < 0 || rep->nfailed != 1 || rep->failed[0] != o->victim)
            wrong(ch, "rank %d: failed ranks %d (first %d), the victim was %d: %s", o->rank, rep->nfailed,
                  rep->nfailed ? rep->failed[0] : -1, o->victim, rep->msg);
        else if ((r = pcclCommShrink(c, rep->failed, rep->nfailed, &c2, &cfg, PCCL_SHRINK_DEFAULT)))
            wrong(ch, "pcclCommShrink -> %s: %s", pcclGetErrorString(r), pcclGetLastError(NULL));
        if ((r = pcclCommAbort(c))) wrong(ch, "pcclCommAbort -> %s", pcclGetErrorString(r));
    } else {
        if (count_threads() < 1) wrong(ch, "no pccl thread seen while the communicator lives: the count is blind");
        if (faulty && o->phase == MP_PH_DESTROY) arm(ch, (long)(ck_rand(&ch->rng) % 500));
        if ((r = pcclCommDestroy(c))) wrong(ch, "pcclCommDestroy -> %s", pcclGetErrorString(r));
    }
    if (faulty && ch->fired) for (;;) ck_sleep_ms(1000); /* the armed fault lands */
    if (faulty && o->kind) fault_now(o);
    if (c2) { /* the survivors go on: any error now is wrong */
        mp_report after;
        memset(&after, 0, sizeof after);
        child on = *ch;
        on.rep = &after;
        if (workload(&on, c2, n2, rank2, 0) || after.wrong) wrong(ch, "after recovery: %s", after.msg);
        else rep->recovered = 1;
        if ((r = pcclCommDestroy(c2))) wrong(ch, "pcclCommDestroy (recovered) -> %s", pcclGetErrorString(r));
    }
    /* Detached daemon threads may still be on their way out. */
    for (int i = 0; i < 200 && (rep->threads = count_threads()) > 0; i++)
        ck_sleep_ms(5);
    rep->maps = count_maps();
}

static int unhex(const char *s, void *out, size_t n)
{
    if (strlen(s) != 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        ((unsigned char *)out)[i] = (unsigned char)v;
    }
    return 0;
}

int mp_child_main(int argc, char **argv)
{
    mp_opts o;
    if (argc < 3 || unhex(argv[2], &o, sizeof o)) {
        fprintf(stderr, "pccl-tests --child: bad options\n");
        return 2;
    }
    mp_report rep;
    memset(&rep, 0, sizeof rep);
    child ch = {&o, &rep, o.seed * 31 + (uint64_t)o.rank, 0, 0, 0};
    ch.fault_at_it = (int)(ck_rand(&ch.rng) % (uint64_t)(o.iters > 1 ? o.iters / 2 : 1));
    ch.fault_at_k = (int)(ck_rand(&ch.rng) % MP_NC);
    if (o.starve_ms && o.rank == o.nranks - 1) { /* pccl's threads, made later, inherit CPU 0 */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(0, &set);
        if (sched_setaffinity(0, sizeof set, &set)) wrong(&ch, "sched_setaffinity: %s", strerror(errno));
    }
    run_child(&ch);
    for (char *p = rep.msg; *p; p++)
        if (*p == '\n') *p = ' ';
    dprintf(REPORT_FD, "R %d %.6f %d %d %d %d %d %d %d|%s\n", rep.err, rep.t_err, rep.nfailed,
            rep.nfailed ? rep.failed[0] : -1, rep.recovered, rep.wrong, rep.threads, rep.maps, 0, rep.msg);
    return 0;
}

/* ---- the parent ------------------------------------------------------------- */

static void hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void parse(char *text, mp_report *r)
{
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == 'F') r->t_fault = atof(line + 2);
        if (line[0] != 'R') continue;
        char *bar = strchr(line, '|');
        int f0 = -1, pad;
        if (sscanf(line + 2, "%d %lf %d %d %d %d %d %d %d", &r->err, &r->t_err, &r->nfailed, &f0, &r->recovered,
                   &r->wrong, &r->threads, &r->maps, &pad) == 9)
            r->reported = 1;
        r->failed[0] = f0;
        if (bar) snprintf(r->msg, sizeof r->msg, "%s", bar + 1);
    }
}

int mp_run(const mp_opts *opts, mp_report *rep, double deadline_s)
{
    int n = opts->nranks, bad = 0;
    pid_t pid[16];
    int fd[16];
    char *text[16];
    size_t len[16];
    memset(rep, 0, sizeof *rep * (size_t)n);
    fflush(NULL);
    for (int r = 0; r < n; r++) {
        mp_opts o = *opts;
        o.rank = r;
        char arg[2 * sizeof o + 1];
        hex(&o, sizeof o, arg);
        int p[2];
        if (pipe2(p, O_CLOEXEC)) return n; /* only the report end, as fd 3, reaches the child */
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, p[1], REPORT_FD);
        char *argv[] = {"/proc/self/exe", "--child", arg, NULL};
        if (posix_spawn(&pid[r], "/proc/self/exe", &fa, NULL, argv, environ)) { pid[r] = -1; bad++; }
        posix_spawn_file_actions_destroy(&fa);
        close(p[1]);
        fd[r] = p[0];
        text[r] = calloc(1, 4096);
        len[r] = 0;
    }
    double t0 = ck_now();
    int open_ = n;
    while (open_ > 0 && ck_now() - t0 < deadline_s) {
        struct pollfd pf[16];
        for (int r = 0; r < n; r++) pf[r] = (struct pollfd){fd[r], POLLIN, 0};
        poll(pf, (nfds_t)n, 50);
        for (int r = 0; r < n; r++) {
            if (fd[r] < 0 || !(pf[r].revents & (POLLIN | POLLHUP))) continue;
            ssize_t k = read(fd[r], text[r] + len[r], 4095 - len[r]);
            if (k > 0) len[r] += (size_t)k;
            else { close(fd[r]); fd[r] = -1; open_--; }
        }
        /* Everyone but a stopped victim is done: the victim goes. */
        int others = 0;
        for (int r = 0; r < n; r++) others += fd[r] >= 0 && r != opts->victim;
        if (!others && opts->victim >= 0 && fd[opts->victim] >= 0 && strstr(text[opts->victim], "F "))
            kill(pid[opts->victim], SIGKILL); /* after its fault (a stop) landed */
    }
    for (int r = 0; r < n; r++) {
        if (fd[r] >= 0) { /* past the deadline: a hang */
            kill(pid[r], SIGKILL);
            close(fd[r]);
            bad++;
        }
        if (pid[r] > 0) waitpid(pid[r], &rep[r].status, 0);
        parse(text[r], &rep[r]);
        free(text[r]);
    }
    return bad;
}

int mp_shm_left(const pcclUniqueId *id)
{
    char tail[17];
    hex(id->internal + 24, 8, tail); /* the bytes a shrink keeps (lib/shrink.c) */
    DIR *d = opendir("/dev/shm");
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, "pccl-", 5) == 0 && strstr(e->d_name, tail);
    closedir(d);
    return n;
}

/* ---- a fault case, judged ------------------------------------------------------ */

static const char *const phase_names[MP_NPH] = {"none", "init", "register", "collective", "sync", "destroy"};

/* Records the first failure of a case; 1 if cond holds. */
static int expect(int cond, char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int expect(int cond, char *why, size_t len, const char *fmt, ...)
{
    if (cond || *why) return cond;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 0;
}

/* What every rank that survives must show: a report, exit 0, nothing
 * wrong, nothing left. */
static void judge_clean(const mp_report *p, int r, const char *what, char *why, size_t len)
{
    expect(p->reported && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0, why, len,
           "%s: rank %d did not report and exit 0 (status 0x%x): %s", what, r, p->status, p->msg);
    expect(!p->wrong, why, len, "%s: rank %d: %d wrong: %s", what, r, p->wrong, p->msg);
    expect(p->threads == 0 && p->maps == 0, why, len, "%s: rank %d left %d pccl threads and %d pccl mappings", what,
           r, p->threads, p->maps);
}

static int clean_case(int backend, int n, int iters, int sync, int chaos, uint64_t seed, int slow_ms, int starve_ms,
                      char *why, size_t len)
{
    mp_opts o;
    memset(&o, 0, sizeof o);
    *why = 0;
    o.backend = backend;
    o.nranks = n;
    o.seed = seed;
    o.iters = iters;
    o.sync = sync;
    o.chaos = chaos;
    o.timeout_ms = 500; /* detection on, tighter than the fault cases': no false alarm */
    o.victim = -1;
    o.slow_ms = slow_ms;
    o.starve_ms = starve_ms;
    pcclGetUniqueId(&o.id);
    mp_report rep[8];
    expect(mp_run(&o, rep, 120) == 0, why, len, "a rank hung or could not start");
    for (int r = 0; r < n; r++) {
        judge_clean(&rep[r], r, "no fault", why, len);
        expect(rep[r].err == pcclSuccess, why, len, "rank %d: %s", r, rep[r].msg);
    }
    expect(mp_shm_left(&o.id) == 0, why, len, "/dev/shm entries left");
    return !*why;
}

int mp_clean_case(int backend, int n, int iters, int sync, int chaos, uint64_t seed, char *why, size_t len)
{
    return clean_case(backend, n, iters, sync, chaos, seed, 0, 0, why, len);
}

int mp_slow_case(int backend, int n, int iters, int slow_ms, char *why, size_t len)
{
    return clean_case(backend, n, iters, 0, 0, 77, slow_ms, 0, why, len);
}

int mp_starved_case(int backend, int n, int starve_ms, char *why, size_t len)
{
    int e = may_starve();
    if (e) {
        snprintf(why, len, "no SCHED_FIFO thread here (%s)", strerror(e));
        return -1;
    }
    return clean_case(backend, n, 2, 0, 0, 78, 0, starve_ms, why, len);
}

int mp_leave_case(int backend, char *why, size_t len)
{
    mp_opts o;
    memset(&o, 0, sizeof o);
    *why = 0;
    o.backend = backend;
    o.nranks = 3;
    o.seed = 79;
    o.iters = 1;
    o.timeout_ms = 500;
    o.victim = -1;
    o.leave_early = 1;
    pcclGetUniqueId(&o.id);
    mp_report rep[3];
    expect(mp_run(&o, rep, 60) == 0, why, len, "a rank hung or could not start");
    for (int r = 0; r < 3; r++) {
        judge_clean(&rep[r], r, "early leaver", why, len);
        expect(rep[r].err == pcclSuccess, why, len, "rank %d: %s", r, rep[r].msg);
    }
    expect(mp_shm_left(&o.id) == 0, why, len, "/dev/shm entries left");
    return !*why;
}

int mp_fault_case(uint64_t seed, int backend, int lo, int hi, mp_stats *st, char *why, size_t len)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 7;
    mp_opts o;
    memset(&o, 0, sizeof o);
    *why = 0;
    o.backend = backend;
    o.nranks = lo + (int)(ck_rand(&s) % (uint64_t)(hi - lo + 1));
    o.seed = seed;
    o.iters = 8;
    o.timeout_ms = MP_TIMEOUT_MS;
    o.victim = (int)(ck_rand(&s) % (uint64_t)o.nranks);
    o.phase = 1 + (int)(seed % (MP_NPH - 1));
    o.kind = ck_rand(&s) % 2 ? MP_KILL : MP_STOP;
    o.sync = o.phase == MP_PH_SYNC || ck_rand(&s) % 4 == 0;
    o.chaos = ck_rand(&s) % 3 == 0;
    pcclGetUniqueId(&o.id);
    pcclGetUniqueId(&o.reinit);
    char what[160];
    snprintf(what, sizeof what, "seed %llu: %s rank %d of %d during %s%s%s", (unsigned long long)seed,
             o.kind == MP_KILL ? "kill -9" : "SIGSTOP", o.victim, o.nranks, phase_names[o.phase],
             o.sync ? ", syncs" : "", o.chaos ? ", chaos" : "");
    mp_report rep[8];
    int bad = mp_run(&o, rep, 60);
    expect(bad == 0, why, len, "%s: %d ranks hung (killed at the deadline) or could not start", what, bad);
    st->injected++;
    const mp_report *v = &rep[o.victim];
    expect(WIFSIGNALED(v->status) && WTERMSIG(v->status) == SIGKILL && v->t_fault > 0, why, len,
           "%s: the victim was not killed (status 0x%x)", what, v->status);
    /* A survivor's deadline: the init's timeout for a rank that never
     * joined, the stall timeout for a stopped one, and slack for the 2-core
     * machine under sanitizers. */
    const char *bt = getenv("PCCL_BOOT_TIMEOUT");
    double deadline = (bt ? atof(bt) : MP_BOOT_S) + MP_TIMEOUT_MS / 1000.0 + 3.0;
    for (int r = 0; r < o.nranks; r++) {
        if (r == o.victim) continue;
        const mp_report *p = &rep[r];
        judge_clean(p, r, what, why, len);
        if (o.phase == MP_PH_DESTROY && !p->err) continue; /* the fault came after the survivor was done */
        double dt = p->t_err - v->t_fault;
        expect(p->err == pcclRemoteError, why, len, "%s: rank %d: expected pcclRemoteError, got %d: %s", what, r,
               p->err, p->msg);
        expect(p->recovered, why, len, "%s: rank %d did not recover: %s", what, r, p->msg);
        expect(dt < deadline, why, len, "%s: rank %d got its error %.2f s after the fault (deadline %.1f s)", what, r,
               dt, deadline);
        int k = o.phase == MP_PH_INIT ? 2 : o.kind == MP_KILL ? 0 : 1;
        if (!st->detected[k]) snprintf(st->example[k], sizeof st->example[k], "%s: rank %d: %s", what, r, p->msg);
        st->detected[k]++;
        st->sum[k] += dt;
        if (dt > st->max[k]) st->max[k] = dt;
    }
    expect(mp_shm_left(&o.id) == 0 && mp_shm_left(&o.reinit) == 0, why, len, "%s: /dev/shm entries left", what);
    st->survived += !*why;
    return !*why;
}

void mp_print_stats(const mp_stats *st, FILE *f)
{
    static const char *const kinds[3] = {"kill -9 after init", "SIGSTOP after init", "during init"};
    fprintf(f, "faults: %d injected, %d survived (every survivor: pcclRemoteError naming the victim, shrink or "
            "re-init, exact results, nothing left)\n", st->injected, st->survived);
    for (int k = 0; k < 3; k++)
        if (st->detected[k])
            fprintf(f, "time to detection, %s: mean %.3f s, max %.3f s (%d survivors); e.g. %s\n", kinds[k],
                    st->sum[k] / st->detected[k], st->max[k], st->detected[k], st->example[k]);
}
