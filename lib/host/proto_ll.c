/* The host backend's LL primitive (lib/proto_ll.h): the twin of
 * lib/gpu/proto_ll.cuh.  A step is cut into pieces of up to 64 units; each
 * piece's received lines are waited for and unpacked, the piece is reduced
 * by the Simple primitive's arithmetic (reduce.c, so both protocols compute
 * alike to the bit), and the result is packed into lines of the send slot
 * with the step's flag. */
#include "host.h"


/* Waits for unit u's two lines; returns its 8 data bytes.  The wait ends in
 * bounded time (proto_ll.h) unless the communicator was aborted, which the
 * loop looks at every 1024 polls: then it gives up (*ok = 0). */
uint64_t pccl_host_ll_recv(const uint64_t *line, uint32_t flag, const uint32_t *abort, int *ok)
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
    uint64_t in[PCCL_HOST_PIECE], out[PCCL_HOST_PIECE];
    int ok = 1;
    for (uint64_t u0 = 0; u0 < units && ok; u0 += PCCL_HOST_PIECE) {
        uint64_t m = units - u0 < PCCL_HOST_PIECE ? units - u0 : PCCL_HOST_PIECE, e0 = u0 * (uint64_t)per;
        for (uint64_t k = 0; a && k < m && ok; k++) in[k] = pccl_host_ll_recv(a + 2 * (u0 + k), j->flag_in, j->abort, &ok);
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
