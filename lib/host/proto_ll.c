/* The host backend's LL primitive (lib/proto_ll.h): the twin of
 * lib/gpu/proto_ll.cuh.  A step is cut into pieces of up to 64 units; each
 * piece's received lines are waited for and unpacked, the piece is reduced
 * by the Simple primitive's arithmetic (reduce.c, so both protocols compute
 * alike to the bit), and the result is packed into lines of the send slot
 * with the step's flag. */
#include "host.h"

#define PIECE 64 /* units per piece: 512 data bytes */

/* Waits for unit u's two lines; returns its 8 data bytes.  The wait ends in
 * bounded time (proto_ll.h) unless the communicator was aborted, which the
 * loop looks at every 1024 polls: then it gives up (*ok = 0). */
static uint64_t ll_recv(const uint64_t *line, uint32_t flag, const uint32_t *abort, int *ok)
{
    for (uint64_t i = 0;; i++) {
        uint64_t lo = pccl_ll_ld(line), hi = pccl_ll_ld(line + 1);
        if ((uint32_t)(lo >> 32) == flag && (uint32_t)(hi >> 32) == flag) return (lo & 0xffffffffu) | hi << 32;
        if ((i & 1023) == 1023 && (pccl_ld_acq32(abort) & PCCL_CTL_ABORT)) return *ok = 0, 0;
        PCCL_POLL_PAUSE(i);
    }
}

void pccl_host_ll_exec(const pccl_job *j)
{
    const uint64_t *a = (const uint64_t *)j->a;
    uint64_t *d1 = (uint64_t *)j->d1;
    const int es = pccl_type_size(j->dtype), per = 8 / es; /* elements per unit */
    const uint64_t units = pccl_ll_units(j->n, es);
    uint64_t in[PIECE], out[PIECE];
    int ok = 1;
    for (uint64_t u0 = 0; u0 < units && ok; u0 += PIECE) {
        uint64_t m = units - u0 < PIECE ? units - u0 : PIECE, e0 = u0 * (uint64_t)per;
        for (uint64_t k = 0; a && k < m && ok; k++) in[k] = ll_recv(a + 2 * (u0 + k), j->flag_in, j->abort, &ok);
        if (!ok) break;
        memset(out, 0, sizeof out); /* a partial unit's tail travels as zeros */
        pccl_job p = *j;
        p.a = a ? (const void *)in : NULL;
        p.b = j->b ? (const char *)j->b + e0 * (uint64_t)es : NULL;
        p.d0 = j->d0 ? (char *)j->d0 + e0 * (uint64_t)es : NULL;
        p.d1 = d1 ? (void *)out : NULL;
        p.n = j->n > e0 ? (j->n - e0 < m * (uint64_t)per ? j->n - e0 : m * (uint64_t)per) : 0;
        pccl_host_exec(&p);
        for (uint64_t k = 0; d1 && k < m; k++) {
            pccl_ll_st(d1 + 2 * (u0 + k), pccl_ll_line((uint32_t)out[k], j->flag_out));
            pccl_ll_st(d1 + 2 * (u0 + k) + 1, pccl_ll_line((uint32_t)(out[k] >> 32), j->flag_out));
        }
    }
}

/* PCCL_GATHER (the direct all-reduce on 3 or more ranks): the twin of
 * pccl_gather_prim (lib/gpu/proto_ll.cuh).  Piece by piece, the n ranks'
 * operands in rank order: ours from the input, the others' from the slots
 * kept in our ring (scheduler.h, pccl_gather_step), LL lines waited for with
 * their slot's flag, Simple slots read as they are; each folded into the
 * running result by the Simple primitive's arithmetic as op(result, operand),
 * avg's division with the last. */
void pccl_host_gather_exec(const pccl_job *j)
{
    const int es = pccl_type_size(j->dtype), per = 8 / es;
    const uint64_t units = j->n ? pccl_ll_units(j->n, es) : 0;
    uint64_t in[PIECE], acc[PIECE];
    int ok = 1;
    for (uint64_t u0 = 0; u0 < units && ok; u0 += PIECE) {
        uint64_t m = units - u0 < PIECE ? units - u0 : PIECE, e0 = u0 * (uint64_t)per;
        uint64_t ne = j->n - e0 < m * (uint64_t)per ? j->n - e0 : m * (uint64_t)per;
        for (int q = 0; q < j->g_n && ok; q++) {
            uint64_t *dst = q == 0 ? acc : in;
            if (q == j->g_r) {
                memcpy(dst, (const char *)j->b + e0 * (uint64_t)es, ne * (uint64_t)es);
            } else {
                uint64_t t = pccl_gather_step(j, q);
                const uint64_t *slot = (const uint64_t *)pccl_gather_slot(j, t);
                for (uint64_t k = 0; k < m && ok; k++)
                    dst[k] = j->ll ? ll_recv(slot + 2 * (u0 + k), pccl_ll_flag(t), j->abort, &ok)
                                   : pccl_ll_ld(slot + u0 + k);
            }
            if (q == 0 || !ok) continue;
            pccl_job p = *j; /* acc = op(acc, in), elementwise in place */
            p.a = in;
            p.b = acc;
            p.d0 = acc;
            p.d1 = NULL;
            p.swap = 1;
            p.n = ne;
            p.div = q == j->g_n - 1 ? j->div : 0;
            pccl_host_exec(&p);
        }
        if (ok) memcpy((char *)j->d0 + e0 * (uint64_t)es, acc, ne * (uint64_t)es);
    }
}
