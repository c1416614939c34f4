/* Steps over several slots on the host backend (scheduler.h's pccl_job,
 * m_kind): the twin of lib/gpu/multi.cuh. */
#include "host.h"

/* Operand q (not ours): a slot kept in our ring (PCCL_GATHER), or a mesh
 * peer's; and its LL flag. */
static const uint64_t *operand(const pccl_job *j, int q, uint32_t *flag)
{
    if (!j->g_n) {
        *flag = j->m_flag[q];
        return (const uint64_t *)j->m_src[q];
    }
    uint64_t t = pccl_gather_step(j, q);
    *flag = pccl_ll_flag(t);
    return (const uint64_t *)pccl_gather_slot(j, t);
}

/* PCCL_JOB_REDUCE and PCCL_GATHER: piece by piece, the n ranks' operands
 * in rank order, ours from the input, the others' from their slots (LL
 * lines waited for with their slot's flag, Simple slots read as they are),
 * each folded into
 * the running result by the Simple primitive's arithmetic as op(result,
 * operand), avg's division with the last; the result to the output and to
 * every send slot (LL: an empty step still sends its one flagged unit). */
void pccl_host_reduce_exec(const pccl_job *j)
{
    const int nr = j->g_n ? j->g_n : j->m_n, me = j->g_n ? j->g_r : j->m_me, nd = j->g_n ? 0 : j->m_nd;
    const int es = pccl_type_size(j->dtype), per = 8 / es;
    const uint64_t units = j->ll && nd ? pccl_ll_units(j->n, es) : j->n ? pccl_ll_units(j->n, es) : 0;
    uint64_t in[PCCL_HOST_PIECE], acc[PCCL_HOST_PIECE];
    int ok = 1;
    for (uint64_t u0 = 0; u0 < units && ok; u0 += PCCL_HOST_PIECE) {
        uint64_t m = units - u0 < PCCL_HOST_PIECE ? units - u0 : PCCL_HOST_PIECE, e0 = u0 * (uint64_t)per;
        uint64_t ne = j->n <= e0 ? 0 : j->n - e0 < m * (uint64_t)per ? j->n - e0 : m * (uint64_t)per;
        memset(acc, 0, sizeof acc); /* a partial unit's tail travels as zeros */
        for (int q = 0; q < nr && ok; q++) {
            uint64_t *dst = q == 0 ? acc : in;
            if (q == me) {
                memcpy(dst, (const char *)j->b + e0 * (uint64_t)es, ne * (uint64_t)es);
            } else {
                uint32_t fl;
                const uint64_t *slot = operand(j, q, &fl);
                for (uint64_t k = 0; k < m && ok; k++)
                    dst[k] = j->ll ? pccl_host_ll_recv(slot + 2 * (u0 + k), fl, j->abort, &ok)
                                   : pccl_ll_ld(slot + u0 + k);
            }
            if (q == 0 || !ok) continue;
            pccl_job p = *j; /* acc = op(acc, in), elementwise in place */
            p.m_kind = PCCL_JOB_ONE;
            p.g_n = 0;
            p.a = in;
            p.b = acc;
            p.d0 = acc;
            p.d1 = NULL;
            p.swap = 1;
            p.n = ne;
            p.div = q == nr - 1 ? j->div : 0;
            pccl_host_exec(&p);
        }
        if (!ok) break;
        if (j->d0) memcpy((char *)j->d0 + e0 * (uint64_t)es, acc, ne * (uint64_t)es);
        for (int i = 0; i < nd; i++) {
            uint64_t *d = (uint64_t *)j->m_dst[i];
            for (uint64_t k = 0; k < m; k++) {
                if (!j->ll) {
                    pccl_ll_st(d + u0 + k, acc[k]);
                    continue;
                }
                pccl_ll_st(d + 2 * (u0 + k), pccl_ll_line((uint32_t)acc[k], j->flag_out));
                pccl_ll_st(d + 2 * (u0 + k) + 1, pccl_ll_line((uint32_t)(acc[k] >> 32), j->flag_out));
            }
        }
    }
}

/* Pair i of a PCCL_JOB_SEND or _RECV job as a one-slot job of its own, the
 * fields a one-slot primitive reads (the GPU's copies are a primitive of
 * their own, gpu/multi.cuh). */
static void job_pair(const pccl_job *j, int i, pccl_job *p)
{
    p->m_kind = PCCL_JOB_ONE;
    p->g_n = 0;
    p->dtype = j->dtype;
    p->op = j->op;
    p->ll = j->ll;
    p->flag_in = j->flag_in;
    p->flag_out = j->flag_out;
    p->abort = j->abort;
    p->n = j->m_cnt[i];
    p->a = j->m_kind == PCCL_JOB_RECV ? j->m_src[i] : NULL;
    p->b = j->m_kind == PCCL_JOB_SEND ? j->m_src[i] : NULL;
    p->d0 = j->m_kind == PCCL_JOB_RECV ? j->m_dst[i] : NULL;
    p->d1 = j->m_kind == PCCL_JOB_SEND ? j->m_dst[i] : NULL;
    p->swap = 0;
    p->div = 0;
}

/* PCCL_JOB_SEND, PCCL_JOB_RECV: each copy by the one-slot primitive of the
 * step's protocol. */
void pccl_host_pairs_exec(const pccl_job *j)
{
    for (int i = 0; i < j->m_n; i++) {
        pccl_job p = {0};
        job_pair(j, i, &p);
        if (p.ll) pccl_host_ll_exec(&p);
        else pccl_host_exec(&p);
    }
}
