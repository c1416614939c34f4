/* The LL protocol's data movement on the GPU (lib/proto_ll.h says what the
 * lines are and why the waits here end): every mover thread takes units of
 * 8 data bytes, two lines in one 16-byte access, PCCL_LL_UNROLL of them at
 * a time so that their loads are in flight together.  A received unit is
 * polled until both its lines carry the step's flag; a sent one is written
 * with it in one 16-byte store.  The arithmetic is pccl_elem's, as in the
 * Simple primitive (prims.cuh), so both protocols compute alike to the bit;
 * the host's twin is lib/host/proto_ll.c. */
#ifndef PCCL_PROTO_LL_CUH
#define PCCL_PROTO_LL_CUH

#ifndef PCCL_LL_UNROLL
#define PCCL_LL_UNROLL 4
#endif

/* Volatile 16-byte accesses: not cached in L1, each 8-byte half single-copy
 * atomic (a half is a line: its data and its flag arrive together). */
__device__ __forceinline__ ulonglong2 pccl_ll_ld2(const uint64_t *p)
{
    ulonglong2 v;
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(v.x), "=l"(v.y) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void pccl_ll_st2(uint64_t *p, uint64_t data, uint32_t flag)
{
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(pccl_ll_line((uint32_t)data, flag)),
                 "l"(pccl_ll_line((uint32_t)(data >> 32), flag))
                 : "memory");
}
__device__ __forceinline__ bool pccl_ll_ok(ulonglong2 v, uint32_t flag)
{
    return (uint32_t)(v.x >> 32) == flag && (uint32_t)(v.y >> 32) == flag;
}
__device__ __forceinline__ uint64_t pccl_ll_data(ulonglong2 v) { return (v.x & 0xffffffffull) | v.y << 32; }

/* Polls a unit until it arrived; gives up (data undefined) once the
 * communicator is aborted, looked at every 1024 polls. */
__device__ __forceinline__ uint64_t pccl_ll_wait(const uint64_t *p, ulonglong2 v, uint32_t flag, const pccl_job *j)
{
    for (uint32_t i = 1; !pccl_ll_ok(v, flag); i++) {
        if ((i & 1023) == 0 && (pccl_ld_acq32(j->abort) & PCCL_CTL_ABORT)) break;
        v = pccl_ll_ld2(p);
    }
    return pccl_ll_data(v);
}

/* A user buffer's share of a unit: 8 bytes where aligned and whole, else
 * the bytes of its elements one by one (the rest stays 0). */
__device__ __forceinline__ uint64_t pccl_ll_get(const char *p, int nb, bool al)
{
    if (al && nb == 8) return *(const uint64_t *)p;
    uint64_t v = 0;
    for (int i = 0; i < nb; i++) v |= (uint64_t)(uint8_t)p[i] << (8 * i);
    return v;
}
__device__ __forceinline__ void pccl_ll_put(char *p, uint64_t v, int nb, bool al)
{
    if (al && nb == 8) { *(uint64_t *)p = v; return; }
    for (int i = 0; i < nb; i++) p[i] = (char)(v >> (8 * i));
}

/* Not inlined, as the Simple primitives are not: inlined into the daemon's
 * loop, the ten instantiations took its spills from 20 to 252 bytes (nvcc
 * -Xptxas -v; 32 not inlined). */
template <typename T, typename Ops> __device__ __noinline__ void pccl_ll_prim(const pccl_job *j)
{
    constexpr int E = 8 / sizeof(T), U = PCCL_LL_UNROLL;
    union unit { uint64_t u; T e[E]; };
    const uint64_t *a = (const uint64_t *)j->a;
    uint64_t *d1 = (uint64_t *)j->d1;
    const char *b = (const char *)j->b;
    char *d0 = (char *)j->d0;
    const uint64_t n = j->n, units = pccl_ll_units(n, sizeof(T)), stride = blockDim.x - PCCL_CTRL_THREADS;
    const bool al = (((uintptr_t)b | (uintptr_t)d0) & 7) == 0, ha = a != NULL, hb = b != NULL;
    const int op = j->op, dv = j->div;
    const bool sw = j->swap;
    for (uint64_t u0 = threadIdx.x - PCCL_CTRL_THREADS; u0 < units; u0 += U * stride) {
        ulonglong2 r[U];
        uint64_t y[U];
#pragma unroll
        for (int k = 0; k < U; k++) { /* all loads of the batch in flight together */
            uint64_t u = u0 + k * stride;
            int nb = u * E < n ? (int)((n - u * E < (uint64_t)E ? n - u * E : E) * sizeof(T)) : 0;
            if (ha && u < units) r[k] = pccl_ll_ld2(a + 2 * u);
            y[k] = hb && u < units ? pccl_ll_get(b + 8 * u, nb, al) : 0;
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
            uint64_t u = u0 + k * stride;
            if (u >= units) break;
            int ne = u * E < n ? (int)(n - u * E < (uint64_t)E ? n - u * E : E) : 0;
            unit x, w, o;
            x.u = ha ? pccl_ll_wait(a + 2 * u, r[k], j->flag_in, j) : 0;
            w.u = y[k];
            o.u = 0;
#pragma unroll
            for (int e = 0; e < E; e++)
                if (e < ne) o.e[e] = pccl_elem<T, Ops>(op, dv, ha, hb, sw, x.e[e], w.e[e]);
            if (d0) pccl_ll_put(d0 + 8 * u, o.u, ne * (int)sizeof(T), al);
            if (d1) pccl_ll_st2(d1 + 2 * u, o.u, j->flag_out);
        }
    }
}

#endif
