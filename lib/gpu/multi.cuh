/* Steps over several slots (scheduler.h's pccl_job, m_kind), in either
 * protocol: the n-operand reduction (the direct all-reduce's PCCL_GATHER,
 * a mesh step's RECV with IN) and the copies to or from every peer (a mesh
 * step's SEND or RECV alone).  The host's twin is lib/host/multi.c. */
#ifndef PCCL_MULTI_CUH
#define PCCL_MULTI_CUH

/* PCCL_GATHER (the direct all-reduce on 3 or more ranks, in either daemon):
 * each unit of the result is the n ranks' units reduced in rank order, ours
 * from the input, the others' from the slots kept in our ring (scheduler.h,
 * pccl_gather_step), in either protocol: LL's lines waited for with their
 * slot's flag (all but the last arrived in earlier steps), Simple's slots
 * read around L1.  The loads of PCCL_GATHER_BATCH operands go out before the
 * first is reduced: one memory latency a unit on up to 4 ranks, not n - 1
 * (all 8 at once spilled them: 128 bytes a thread). */
#define PCCL_GATHER_BATCH 4
template <typename T, typename Ops> __device__ __noinline__ void pccl_gather_prim(const pccl_job *j)
{
    constexpr int E = 8 / sizeof(T), B = PCCL_GATHER_BATCH;
    union unit { uint64_t u; T e[E]; };
    const char *b = (const char *)j->b;
    char *d0 = (char *)j->d0;
    const uint64_t n = j->n, units = (n * sizeof(T) + 7) / 8, stride = blockDim.x - PCCL_CTRL_THREADS;
    const bool al = (((uintptr_t)b | (uintptr_t)d0) & 7) == 0, ll = j->ll != 0;
    const int nr = j->g_n, me = j->g_r, op = j->op, dv = j->div;
    for (uint64_t u = threadIdx.x - PCCL_CTRL_THREADS; u < units; u += stride) {
        const int ne = n - u * E < (uint64_t)E ? (int)(n - u * E) : E;
        unit acc, x;
        acc.u = 0;
        for (int q0 = 0; q0 < nr; q0 += B) {
            ulonglong2 v[B];
#pragma unroll
            for (int k = 0; k < B; k++) {
                const int q = q0 + k;
                if (q >= nr || q == me) continue;
                const uint64_t *p = (const uint64_t *)pccl_gather_slot(j, pccl_gather_step(j, q));
                if (ll) v[k] = pccl_ll_ld2(p + 2 * u);
                else v[k].x = __ldcg((const unsigned long long *)p + u);
            }
#pragma unroll
            for (int k = 0; k < B; k++) {
                const int q = q0 + k;
                if (q >= nr) break;
                if (q == me) x.u = pccl_ll_get(b + 8 * u, ne * (int)sizeof(T), al);
                else if (!ll) x.u = v[k].x;
                else {
                    const uint64_t t = pccl_gather_step(j, q);
                    x.u = pccl_ll_wait((const uint64_t *)pccl_gather_slot(j, t) + 2 * u, v[k], pccl_ll_flag(t), j);
                }
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (e < ne) acc.e[e] = q == 0 ? x.e[e] : Ops::op(op, acc.e[e], x.e[e]);
            }
        }
        if (dv)
#pragma unroll
            for (int e = 0; e < E; e++)
                if (e < ne) acc.e[e] = Ops::div(acc.e[e], dv);
        pccl_ll_put(d0 + 8 * u, acc.u, ne * (int)sizeof(T), al);
    }
}

/* PCCL_JOB_REDUCE on the mesh: each unit (8 data bytes) of the result is
 * the n ranks' units reduced in rank order, ours from the input, the others' from their
 * slots: LL's lines waited for with their slot's flag, Simple's read around
 * L1.  A thread takes PCCL_MULTI_UNITS units a stride apart at a time, and
 * the loads of PCCL_GATHER_BATCH operands of each go out before the first
 * is reduced: one memory latency for them all on up to 4 ranks (all 8
 * operands at once spilled them: 128 bytes a thread).  One unit at a time
 * is latency-bound at medium sizes (a 512 KiB one-shot all-reduce on 2
 * H200s took twice the direct one's round trip, results/mesh-x2/, call
 * 1); two spilled 500 bytes a thread here (-Xptxas -v), so one, for
 * now (16-byte loads of each operand, two a thread in flight, with the
 * operation fixed per instantiation, spilled 96-256 bytes and took the
 * mesh's daemon's stack frame from 2136 to 4696 bytes: not kept).  The
 * result goes to the output and to every send slot (LL: with the step's flag; an empty step still sends
 * its one flagged unit, which the receivers look for). */
#define PCCL_GATHER_BATCH 4
#define PCCL_MULTI_UNITS 1
template <typename T, typename Ops> __device__ __noinline__ void pccl_reduce_prim(const pccl_job *j)
{
    constexpr int E = 8 / sizeof(T), B = PCCL_GATHER_BATCH, R = PCCL_MULTI_UNITS;
    union unit { uint64_t u; T e[E]; };
    const char *b = (const char *)j->b;
    char *d0 = (char *)j->d0;
    const bool ll = j->ll != 0;
    const uint64_t n = j->n, stride = blockDim.x - PCCL_CTRL_THREADS,
                   units = ll && j->m_nd ? pccl_ll_units(n, sizeof(T)) : (n * sizeof(T) + 7) / 8;
    const bool al = (((uintptr_t)b | (uintptr_t)d0) & 7) == 0;
    const int nr = j->m_n, me = j->m_me, op = j->op, dv = j->div, nd = j->m_nd;
    for (uint64_t u0 = threadIdx.x - PCCL_CTRL_THREADS; u0 < units; u0 += R * stride) {
        unit acc[R];
#pragma unroll
        for (int r = 0; r < R; r++) acc[r].u = 0;
        for (int q0 = 0; q0 < nr; q0 += B) {
            ulonglong2 v[B][R];
#pragma unroll
            for (int k = 0; k < B; k++) {
                const int q = q0 + k;
                if (q >= nr || q == me) continue;
                const uint64_t *p = (const uint64_t *)j->m_src[q];
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const uint64_t u = u0 + r * stride;
                    if (u >= units) break;
                    if (ll) v[k][r] = pccl_ll_ld2(p + 2 * u);
                    else v[k][r].x = __ldcg((const unsigned long long *)p + u);
                }
            }
#pragma unroll
            for (int k = 0; k < B; k++) {
                const int q = q0 + k;
                if (q >= nr) break;
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const uint64_t u = u0 + r * stride;
                    if (u >= units) break;
                    const int ne = u * E >= n ? 0 : n - u * E < (uint64_t)E ? (int)(n - u * E) : E;
                    unit x;
                    if (q == me) x.u = pccl_ll_get(b + 8 * u, ne * (int)sizeof(T), al);
                    else if (!ll) x.u = v[k][r].x;
                    else x.u = pccl_ll_wait((const uint64_t *)j->m_src[q] + 2 * u, v[k][r], j->m_flag[q], j);
#pragma unroll
                    for (int e = 0; e < E; e++)
                        if (e < ne) acc[r].e[e] = q == 0 ? x.e[e] : Ops::op(op, acc[r].e[e], x.e[e]);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
            const uint64_t u = u0 + r * stride;
            if (u >= units) break;
            const int ne = u * E >= n ? 0 : n - u * E < (uint64_t)E ? (int)(n - u * E) : E;
            if (dv)
#pragma unroll
                for (int e = 0; e < E; e++)
                    if (e < ne) acc[r].e[e] = Ops::div(acc[r].e[e], dv);
            if (d0) pccl_ll_put(d0 + 8 * u, acc[r].u, ne * (int)sizeof(T), al);
            for (int i = 0; i < nd; i++) {
                uint64_t *d = (uint64_t *)j->m_dst[i];
                if (ll) pccl_ll_st2(d + 2 * u, acc[r].u, j->flag_out);
                else d[u] = acc[r].u;
            }
        }
    }
}

/* PCCL_JOB_SEND, PCCL_JOB_RECV: the copies one after another, each by the
 * whole block, as bytes (a copy knows no type): Simple 16 bytes a thread at
 * a time where both ends allow, PCCL_UNROLL of them in flight, then byte
 * by byte; LL a unit (8 data bytes, 16 slot bytes) a thread at a time, an
 * empty copy still one flagged unit (as pccl_ll_prim).  PCCL_LL_UNROLL
 * units a thread in flight, as pccl_ll_prim has, spilled 288 bytes here. */
static __device__ __noinline__ void pccl_pairs_prim(const pccl_job *j)
{
    const uint64_t tid = threadIdx.x - PCCL_CTRL_THREADS, stride = blockDim.x - PCCL_CTRL_THREADS;
    const bool recv = j->m_kind == PCCL_JOB_RECV;
    const int es = j->m_es; /* pccl_type_size's table would be a load from global memory */
    for (int i = 0; i < j->m_n; i++) {
        const char *src = j->m_src[i];
        char *dst = j->m_dst[i];
        const uint64_t bytes = j->m_cnt[i] * (uint64_t)es;
        if (j->ll) {
            const bool al = (((uintptr_t)src | (uintptr_t)dst) & 7) == 0;
            const uint64_t units = pccl_ll_units(j->m_cnt[i], es);
            for (uint64_t u = tid; u < units; u += stride) {
                const int nb = 8 * u >= bytes ? 0 : bytes - 8 * u < 8 ? (int)(bytes - 8 * u) : 8;
                if (recv) {
                    const uint64_t *p = (const uint64_t *)src + 2 * u;
                    pccl_ll_put(dst + 8 * u, pccl_ll_wait(p, pccl_ll_ld2(p), j->flag_in, j), nb, al);
                } else {
                    pccl_ll_st2((uint64_t *)dst + 2 * u, pccl_ll_get(src + 8 * u, nb, al), j->flag_out);
                }
            }
            continue;
        }
        uint64_t done = 0;
        if ((((uintptr_t)src | (uintptr_t)dst) & 15) == 0) {
            const uint4 *s4 = (const uint4 *)src;
            uint4 *d4 = (uint4 *)dst;
            const uint64_t nv = bytes / 16;
            uint64_t v = tid;
            for (; v + (PCCL_UNROLL - 1) * stride < nv; v += PCCL_UNROLL * stride) {
                uint4 x[PCCL_UNROLL];
#pragma unroll
                for (int k = 0; k < PCCL_UNROLL; k++) x[k] = recv ? __ldcg(s4 + v + k * stride) : s4[v + k * stride];
#pragma unroll
                for (int k = 0; k < PCCL_UNROLL; k++) d4[v + k * stride] = x[k];
            }
            for (; v < nv; v += stride) d4[v] = recv ? __ldcg(s4 + v) : s4[v];
            done = nv * 16;
        }
        for (uint64_t b = done + tid; b < bytes; b += stride)
            dst[b] = recv ? (char)__ldcg((const signed char *)src + b) : src[b];
    }
}

/* A mesh step, behind one call a type where the one-slot primitives are
 * called (prims.cuh; only in the mesh's daemon, PCCL_MESH_ON). */
template <typename T, typename Ops> __device__ __noinline__ void pccl_multi_prim(const pccl_job *j)
{
    if (j->m_kind == PCCL_JOB_REDUCE) pccl_reduce_prim<T, Ops>(j);
    else if (PCCL_MESH_ON) pccl_pairs_prim(j);
}

#endif
