/* calls.h: one collective, described by its shape (tests/pccl/check.h's
 * ck_coll: type, data type, op, root, count), as a library call.  Shared by
 * dlreplay (lib_pccl.c, lib_nccl.c) and pccl-perf (perf/lib_pccl.c,
 * perf/lib_nccl.c).  Header-only: pccl-perf builds with nvcc alone.  The NCCL
 * half is there when <nccl.h> was included first. */
#ifndef DR_CALLS_H
#define DR_CALLS_H

#include "../lib/pccl.h"
#include "../tests/pccl/check.h"

/* Registers the collective on comm (priority 0); its id in *id. */
static inline pcclResult_t dr_pccl_register(pcclComm_t comm, const ck_coll *k, int *id)
{
    switch (k->type) {
    case pcclCollAllReduce: return pcclRegisterAllReduce(comm, k->count, k->dtype, k->op, 0, id);
    case pcclCollAllGather: return pcclRegisterAllGather(comm, k->count, k->dtype, 0, id);
    case pcclCollReduceScatter:
        return pcclRegisterReduceScatter(comm, k->count, k->dtype, k->op, 0, id);
    case pcclCollReduce: return pcclRegisterReduce(comm, k->count, k->dtype, k->op, k->root, 0, id);
    default: return pcclRegisterBroadcast(comm, k->count, k->dtype, k->root, 0, id);
    }
}

#ifdef NCCL_H_
/* Issues the collective on stream; *name (if not NULL) gets the NCCL call's
 * name for messages.  pccl's type and op numbering is NCCL's. */
static inline ncclResult_t dr_nccl_call(const ck_coll *k, const void *send, void *recv,
                                        ncclComm_t comm, cudaStream_t stream, const char **name)
{
    ncclDataType_t t = (ncclDataType_t)k->dtype;
    ncclRedOp_t op = (ncclRedOp_t)k->op;
    const char *dummy;
    if (!name)
        name = &dummy;
    switch (k->type) {
    case pcclCollAllReduce:
        *name = "ncclAllReduce";
        return ncclAllReduce(send, recv, k->count, t, op, comm, stream);
    case pcclCollAllGather:
        *name = "ncclAllGather";
        return ncclAllGather(send, recv, k->count, t, comm, stream);
    case pcclCollReduceScatter:
        *name = "ncclReduceScatter";
        return ncclReduceScatter(send, recv, k->count, t, op, comm, stream);
    case pcclCollReduce:
        *name = "ncclReduce";
        return ncclReduce(send, recv, k->count, t, op, k->root, comm, stream);
    default:
        *name = "ncclBroadcast";
        return ncclBroadcast(send, recv, k->count, t, k->root, comm, stream);
    }
}
#endif

#endif
