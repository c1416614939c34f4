/* pccl: preemptive, deadlock-free collectives for NVIDIA GPUs.
 *
 * One persistent daemon kernel per GPU runs every collective of a communicator
 * as a program of primitives and preempts a collective whose peer is not there
 * yet, so GPUs may invoke collectives in any order, with GPU synchronizations in
 * between, and never deadlock.  Names and result codes follow NCCL.
 *
 * Life cycle:  pcclCommInitAll / pcclCommInitRank  ->  pcclRegister*  (once per
 * collective, at any time)  ->  pcclRun (asynchronous, any order, repeatedly)
 * ->  pcclWait / pcclTest / callback  ->  pcclCommDestroy (or pcclCommAbort).
 *
 * Every rank of a communicator registers the same collectives in the same order
 * (as NCCL requires for communicator creation): a collective's id is its index
 * in that order, and it names the same collective on every rank.
 *
 * Backends: PCCL_BACKEND_GPU runs the daemon on CUDA devices; PCCL_BACKEND_HOST
 * runs the very same scheduling core on host threads (one or more per emulated
 * GPU, buffers in host memory) for machines without a GPU.
 */
#ifndef PCCL_H
#define PCCL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCCL_MAJOR 0
#define PCCL_MINOR 1
#define PCCL_PATCH 0
#define PCCL_VERSION_CODE (PCCL_MAJOR * 10000 + PCCL_MINOR * 100 + PCCL_PATCH)

/* Same numbering as ncclResult_t. */
typedef enum {
    pcclSuccess = 0,
    pcclUnhandledCudaError = 1,
    pcclSystemError = 2,
    pcclInternalError = 3,
    pcclInvalidArgument = 4,
    pcclInvalidUsage = 5,
    pcclRemoteError = 6,
    pcclInProgress = 7,
    pcclNumResults = 8
} pcclResult_t;

/* Same numbering as ncclDataType_t. */
typedef enum {
    pcclInt8 = 0, pcclChar = 0,
    pcclUint8 = 1,
    pcclInt32 = 2, pcclInt = 2,
    pcclUint32 = 3,
    pcclInt64 = 4,
    pcclUint64 = 5,
    pcclFloat16 = 6, pcclHalf = 6,
    pcclFloat32 = 7, pcclFloat = 7,
    pcclFloat64 = 8, pcclDouble = 8,
    pcclBfloat16 = 9,
    pcclNumTypes = 10
} pcclDataType_t;

/* Same numbering as ncclRedOp_t.  pcclAvg sums, then divides by the number of
 * ranks (integer division, truncating, for integer types). */
typedef enum { pcclSum = 0, pcclProd = 1, pcclMax = 2, pcclMin = 3, pcclAvg = 4, pcclNumOps = 5 } pcclRedOp_t;

typedef enum {
    pcclCollAllReduce = 0, pcclCollAllGather = 1, pcclCollReduceScatter = 2,
    pcclCollReduce = 3, pcclCollBroadcast = 4, pcclNumColls = 5
} pcclCollType_t;

typedef enum { PCCL_BACKEND_DEFAULT = -1, PCCL_BACKEND_GPU = 0, PCCL_BACKEND_HOST = 1 } pcclBackend_t;
typedef enum { PCCL_ORDER_DEFAULT = -1, PCCL_ORDER_FIFO = 0, PCCL_ORDER_PRIORITY = 1 } pcclOrder_t;
/* Protocols (pcclConfig_t.proto, PCCL_PROTO): AUTO picks one per collective
 * by its size and the rank count (lib/tune.c); SIMPLE sends data, then a
 * fence and a flag per step; LL sends the flag inside the data (lib/README.md,
 * "Protocols"). */
#define PCCL_PROTO_AUTO 0
#define PCCL_PROTO_SIMPLE 1
#define PCCL_PROTO_LL 2
/* Algorithms (pcclConfig_t.algo, PCCL_ALGO): AUTO picks by size and rank
 * count; RING; DIRECT (all-reduce on 2-8 ranks, at most PCCL_SLOTS + 1:
 * every input reaches every rank, which reduces all in rank order; one hop
 * on 2 ranks, n - 1 on more; elsewhere the ring); ONESHOT and TWOSHOT
 * (all-reduce on 2-8 ranks, over connectors to every peer: each rank's
 * input goes to every other in one hop and each reduces all n; or a
 * reduce-scatter in one hop, then an all-gather in one). */
#define PCCL_ALGO_AUTO 0
#define PCCL_ALGO_RING 1
#define PCCL_ALGO_DIRECT 2
#define PCCL_ALGO_ONESHOT 3
#define PCCL_ALGO_TWOSHOT 4

typedef struct pcclComm *pcclComm_t;

#define PCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[PCCL_UNIQUE_ID_BYTES]; } pcclUniqueId;

/* Called once per completed invocation, from the communicator's poller thread.
 * status is pcclSuccess, or pcclRemoteError if the communicator was aborted
 * or failed (a peer died or stalled: pcclCommGetAsyncError).
 * A callback may call pcclRun (re-invoke), pcclTest, the queries, and
 * pcclCommDestroy / pcclCommAbort of its own communicator (see there);
 * pcclWait and pcclWaitAll on its own communicator return pcclInvalidUsage
 * (they would wait for completions only the blocked poller can deliver). */
typedef void (*pcclCallback_t)(int collId, pcclResult_t status, void *userArg);

/* Knobs.  A field left at PCCL_CONFIG_UNSET takes the value of its environment
 * variable (named next to it), else the backend's default (see lib/README.md). */
#define PCCL_CONFIG_UNSET (-1)
typedef struct {
    size_t size;          /* sizeof(pcclConfig_t), set by the initializer */
    int backend;          /* PCCL_BACKEND          gpu | host                      */
    int blocks;           /* PCCL_BLOCKS           daemon blocks (channels) per GPU */
    int threads;          /* PCCL_THREADS          threads per block (GPU)          */
    long chunkBytes;      /* PCCL_CHUNK_BYTES      bytes per connector slot         */
    int slots;            /* PCCL_SLOTS            slots per connector ring         */
    long spinHead;        /* PCCL_SPIN_HEAD        spin threshold, task-queue head  */
    long spinBase;        /* PCCL_SPIN_BASE        spin threshold, second entry     */
    long spinMin;         /* PCCL_SPIN_MIN         lowest threshold, later entries  */
    int sticky;           /* PCCL_STICKY           threshold factor after a success */
    long quitUs;          /* PCCL_QUIT_US          quit after this long unprogressed */
    long relaunchUs;      /* PCCL_RELAUNCH_US      first restart delay after a stuck quit */
    int order;            /* PCCL_ORDER            fifo | priority                  */
    int chaos;            /* PCCL_CHAOS            1: thresholds of a few spins, random queue order */
    long chaosSeed;       /* PCCL_CHAOS_SEED                                         */
    int maxColls;         /* PCCL_MAX_COLLS        registered collectives per communicator */
    int queueDepth;       /* PCCL_QUEUE_DEPTH      invocations in flight per GPU    */
    long arenaBytes;      /* PCCL_ARENA_BYTES      connector memory per GPU         */
    int profile;          /* PCCL_PROFILE          1: time the daemon's phases (pcclStats_t) */
    int interleave;       /* PCCL_INTERLEAVE       loops a block runs step by step together (< slots) */
    int dynamic;          /* PCCL_DYNAMIC          1: blocks claim groups of loops at run time; 0: dealt */
    long peerTimeoutMs;   /* PCCL_PEER_TIMEOUT_MS  a peer process whose heartbeat stands still this long
                             while this rank waits is failed; 0: never (an exited peer always is) */
    long sliceUs;         /* PCCL_SLICE_US         a daemon launch ends after this long, work or not
                                                   (and is relaunched): a CUDA call that waits for the
                                                   GPU (cudaFree, a module load ...) waits at most two
                                                   slices; 0: never; PCCL_SLICE_US_DEFAULT on GPUs,
                                                   32 ms with the watch, PCCL_WATCH_US */
    long sliceGapUs;      /* PCCL_SLICE_GAP_US     the GPU stays free this long after a slice
                                                   before the relaunch (a waiting call's chance) */
    int proto;            /* PCCL_PROTO            PCCL_PROTO_AUTO (by size and ranks), _SIMPLE, _LL */
    int algo;             /* PCCL_ALGO             PCCL_ALGO_AUTO (by size and ranks), _RING, _DIRECT, _ONESHOT, _TWOSHOT */
    int traceLat;         /* PCCL_TRACE_LAT        1: stamp each invocation's hops; destroy prints the
                                                   medians per collective shape to stderr */
    long waitSpinUs;      /* PCCL_WAIT_SPIN_US     pcclWait/pcclWaitRun spin this long on the completion
                                                   queue (draining it themselves) before they sleep */
    int sliceAlign;       /* PCCL_SLICE_ALIGN      1 (default): slices end on a grid of the host's clock,
                                                   the same for every rank (their relaunches overlap); 0: a
                                                   slice after each launch's start */
    long sliceEarlyUs;    /* PCCL_SLICE_EARLY_US   a daemon block with nothing to run ends its launch up to
                                                   this long before the slice's end (0: at the end) */
    long watchUs;         /* PCCL_WATCH_US         a CUDA call of the process in progress this long (any
                                                   thread's, seen through CUPTI) asks the daemon to end its
                                                   launch, and the slice defaults to 32 ms; 0 (the
                                                   default): no watch */
} pcclConfig_t;

/* PCCL_SLICE_US's default on GPUs: what a CUDA call that waits for the GPU
 * waits at most while collectives stream (two slices for one that waits
 * twice).  Each slice costs a relaunch, 49-78 us of the GPU's time: on one
 * H200, back-to-back all-reduces from 8 B to 512 MiB lost 0.6-1.9% to 6 ms
 * slices in most runs (but 2.3% at 32 KiB and 2.0% at 8 B in two of eleven
 * small-size runs) and 1.2-4.2% to 4 ms ones (results/slice-ab-h200,
 * results/stack-h200). */
#define PCCL_SLICE_US_DEFAULT 6000

#define PCCL_CONFIG_INITIALIZER {                                                   \
    sizeof(pcclConfig_t), PCCL_BACKEND_DEFAULT, -1, -1, -1L, -1, -1L, -1L, -1L, -1, \
    -1L, -1L, PCCL_ORDER_DEFAULT, -1, -1L, -1, -1, -1L, -1, -1, -1, -1L, -1L, -1L, -1, -1, -1, -1L, -1, -1L, \
    -1L }

typedef struct {
    uint64_t completed;    /* invocations completed                          */
    uint64_t preemptions;  /* collectives preempted, summed over blocks      */
    uint64_t quits;        /* voluntary daemon quits (kernel ends), all blocks agreeing */
    uint64_t launches;     /* daemon launches                                */
    uint64_t primitives;   /* primitives executed, summed over blocks        */
    int blocks;            /* so per-block figures can be derived            */
    /* Where the daemon's time went, in ns summed over blocks; 0 unless
     * PCCL_PROFILE=1.  Per invocation and block: divide by blockCompletions. */
    uint64_t blockCompletions; /* invocations completed, summed over blocks */
    uint64_t sqNs;         /* reading the SQ, in the passes that found entries */
    uint64_t waitNs;       /* polling connector flags: peers, free slots      */
    uint64_t execNs;       /* primitives: moving and reducing data (with the posts overlapping them) */
    uint64_t commitNs;     /* publishing steps to peers (fence, flag stores) the block waited for */
    uint64_t cqNs;         /* completing: the blocks' count, the CQ entry     */
    uint64_t lifeNs;       /* from the SQ read to completion, per invocation  */
    int smId;              /* pcclCommGetBlockStats: the SM the block ran on at its latest
                              launch; -1 where not known (host backend, pcclCommGetStats) */
    uint64_t slices;       /* daemon launches ended by the time slice (PCCL_SLICE_US), not
                              idleness: block 0's count, or the block's own */
    uint64_t crossed;      /* of the preemptions, those made before the spin threshold ran
                              out because a ring neighbour's posted wait showed that it waits
                              for this block: for another collective this block can run, with
                              a lower id, or for ours, which it cannot run yet (collectives
                              invoked in different orders on different ranks) */
    uint64_t lookAheads;   /* invocations block 0 fetched from the SQ and handed on while it
                              ran its share of another on several blocks, so that the other
                              blocks need not wait for it to finish that share */
    uint64_t waitFetches;  /* invocations block 0 fetched from the SQ and handed on while a
                              collective of its own waited for a peer, so that no peer waits
                              for what this rank's SQ holds (the ranks' SQs in different
                              orders) until that wait's threshold runs out */
} pcclStats_t;

const char *pcclGetErrorString(pcclResult_t result);
/* The last error's full message: which call, which argument, what was
 * wrong.  The newer of the calling thread's last failed call on comm (as
 * errno: another thread's failed call, a callback's on the poller thread
 * included, does not replace it) and comm's own last error, which no call
 * returned (a peer found failed, a relaunch that failed: every thread's).
 * comm NULL: the calling thread's last failed call on any communicator or
 * none.  "" when there is none.  A destroyed communicator's handle is not
 * read: the message says it is not live. */
const char *pcclGetLastError(pcclComm_t comm);
pcclResult_t pcclGetVersion(int *version);

/* One process per GPU (or one thread per GPU): rank 0 calls pcclGetUniqueId
 * and the caller hands the id to every rank (MPI, a file, a pipe...).  Ranks of
 * one host only (connectors are NVLink/PCIe peer memory, CUDA IPC across
 * processes; POSIX shared memory on the host backend).  Blocks until all nranks ranks have joined.  The knobs that
 * shape the rings (backend, blocks, threads, chunkBytes, slots, interleave,
 * dynamic: from config or environment) must be the same on every rank: where
 * they differ, every rank gets pcclInvalidArgument naming the knob.  Ranks
 * may share a device, as threads of one process (pccl-perf --share-gpu) or as
 * processes; pcclCommInitAll refuses a device listed twice (a devlist
 * naming one twice is taken for a mistake, as NCCL's). */
pcclResult_t pcclGetUniqueId(pcclUniqueId *uniqueId);
pcclResult_t pcclCommInitRank(pcclComm_t *comm, int nranks, pcclUniqueId commId, int rank);
pcclResult_t pcclCommInitRankConfig(pcclComm_t *comm, int nranks, pcclUniqueId commId, int rank,
                                    const pcclConfig_t *config);
/* One process driving ndev GPUs (devlist NULL: devices 0..ndev-1).  With the
 * host backend, ndev emulated GPUs. */
pcclResult_t pcclCommInitAll(pcclComm_t *comms, int ndev, const int *devlist);
pcclResult_t pcclCommInitAllConfig(pcclComm_t *comms, int ndev, const int *devlist,
                                   const pcclConfig_t *config);
/* Waits for this rank's outstanding invocations, stops the daemon, frees.
 * The handle is dead from the call on: any later call with it (or a second
 * destroy or abort) is pcclInvalidUsage.
 * From a callback of the same communicator (its poller thread) it does the
 * same there: the outstanding invocations complete first (their callbacks run,
 * nested in this one; their pcclRun of this communicator fails), the daemon
 * stops; only the end of the poller thread and the freeing of the
 * communicator's memory happen after the callback returns.  Either way every
 * invocation's buffers are the caller's again when it returns. */
pcclResult_t pcclCommDestroy(pcclComm_t comm);
/* Stops the daemon at once; outstanding invocations complete with
 * pcclRemoteError (callbacks run, waits return).  Frees the communicator.
 * From a callback of the same communicator: as pcclCommDestroy above (the
 * outstanding invocations fail, their callbacks run nested). */
pcclResult_t pcclCommAbort(pcclComm_t comm);
/* Faults (lib/README.md, "Faults").  Ranks in separate processes watch each
 * other: a peer that exits, or (PCCL_PEER_TIMEOUT_MS) whose process makes no
 * progress while this rank waits, fails the communicator: the invocations in
 * flight complete with pcclRemoteError (callbacks run, waits return it), new
 * ones are refused, pcclGetLastError names the rank and the collectives.
 * *asyncError: pcclSuccess, or pcclRemoteError once that happened. */
pcclResult_t pcclCommGetAsyncError(pcclComm_t comm, pcclResult_t *asyncError);
/* The ranks found failed (dead or stalled), ascending, in ranks[] (room for
 * nranks); *count 0 while none is.  The same list on every surviving rank. */
pcclResult_t pcclCommGetFailedRanks(pcclComm_t comm, int *ranks, int *count);
/* Recovery, as ncclCommShrink: every surviving rank calls it with the same
 * excludeRanks (e.g. pcclCommGetFailedRanks's) and gets a communicator of the
 * others, ranks in the same order.  PCCL_SHRINK_ABORT first fails what the
 * parent has in flight.  The parent stays to be aborted (pcclCommAbort). */
#define PCCL_SHRINK_DEFAULT 0
#define PCCL_SHRINK_ABORT 1
pcclResult_t pcclCommShrink(pcclComm_t comm, const int *excludeRanks, int excludeCount, pcclComm_t *newcomm,
                            const pcclConfig_t *config, int shrinkFlags);
pcclResult_t pcclCommCount(pcclComm_t comm, int *count);
pcclResult_t pcclCommUserRank(pcclComm_t comm, int *rank);
pcclResult_t pcclCommCuDevice(pcclComm_t comm, int *device);

/* Registration returns the collective's id in *collId.  Counts as in NCCL:
 * all-gather's sendcount and reduce-scatter's recvcount are per rank.
 * priority: higher runs first under PCCL_ORDER_PRIORITY. */
pcclResult_t pcclRegisterAllReduce(pcclComm_t comm, size_t count, pcclDataType_t datatype,
                                   pcclRedOp_t op, int priority, int *collId);
pcclResult_t pcclRegisterAllGather(pcclComm_t comm, size_t sendcount, pcclDataType_t datatype,
                                   int priority, int *collId);
pcclResult_t pcclRegisterReduceScatter(pcclComm_t comm, size_t recvcount, pcclDataType_t datatype,
                                       pcclRedOp_t op, int priority, int *collId);
pcclResult_t pcclRegisterReduce(pcclComm_t comm, size_t count, pcclDataType_t datatype,
                                pcclRedOp_t op, int root, int priority, int *collId);
pcclResult_t pcclRegisterBroadcast(pcclComm_t comm, size_t count, pcclDataType_t datatype,
                                   int root, int priority, int *collId);

/* Invokes a registered collective asynchronously.  Buffers are device memory
 * of the communicator's GPU (host memory with the host backend), aligned to
 * the datatype's size (else pcclInvalidArgument); in-place as in NCCL.
 * callback may be NULL.  One invocation per collective may be in
 * flight: a second pcclRun of the same id before it completes is
 * pcclInvalidUsage. */
pcclResult_t pcclRun(pcclComm_t comm, int collId, const void *sendbuff, void *recvbuff,
                     pcclCallback_t callback, void *userArg);
/* ---- stream-ordered invocation (lib/stream.c) ----
 * pcclStream_t is a cudaStream_t on the GPU backend (NULL: the legacy default
 * stream), a stream from pcclHostStreamCreate on the host backend.
 *
 * pcclRunOnStream, as ncclAllReduce(..., stream): the daemon reads the inputs
 * only after the work enqueued on `stream` before the call is complete, and
 * the work enqueued on `stream` after the call starts only after the
 * collective is complete.  It returns at once; no host thread waits.  Ranks
 * may still invoke in different orders, each collective on its own stream
 * (or through pcclRunAfter/pcclStreamWaitRun): a stream executes in order,
 * so two collectives put on ONE stream in opposite orders on two ranks wait
 * for each other by definition, as with NCCL.
 *
 * pcclRunAfter is its first half: the inputs are read after the stream's
 * earlier work, nothing later on the stream waits; *ticket (may be NULL)
 * names the invocation.  pcclStreamWaitRun(comm, collId, ticket, stream) is
 * the second: work enqueued on `stream` after it waits until that
 * invocation completed (torch's Work.wait()).  The plain completion calls
 * (pcclTest, pcclWait, pcclWaitAll) see stream invocations too.
 *
 * A stream invocation may be issued while the collective is in flight: it
 * starts after the one before it, in issue order.  At most PCCL_MAX_PENDING
 * invocations of one collective may be outstanding (pcclInvalidUsage beyond).
 * pcclCommAbort releases every stream waiting for a collective (its output
 * is then undefined). */
#define PCCL_MAX_PENDING 8
typedef void *pcclStream_t;
pcclResult_t pcclRunOnStream(pcclComm_t comm, int collId, const void *sendbuff, void *recvbuff,
                             pcclStream_t stream);
pcclResult_t pcclRunAfter(pcclComm_t comm, int collId, const void *sendbuff, void *recvbuff, pcclStream_t stream,
                          uint64_t *ticket);
pcclResult_t pcclStreamWaitRun(pcclComm_t comm, int collId, uint64_t ticket, pcclStream_t stream);
/* The host's view of one invocation (tickets of pcclRunAfter; pcclRun's
 * invocations count too): *done = 1 once it completed; pcclWaitRun blocks
 * until then.  pcclRemoteError if the communicator was aborted. */
pcclResult_t pcclTestRun(pcclComm_t comm, int collId, uint64_t ticket, int *done);
pcclResult_t pcclWaitRun(pcclComm_t comm, int collId, uint64_t ticket);

/* The host backend's emulated streams (lib/host/stream.c): a thread that
 * runs the stream's operations in order (host functions, pccl's flag stores
 * and waits), as a GPU runs a CUDA stream.  A stream belongs to one
 * communicator of the host backend (its "device"): pcclDeviceSynchronize
 * waits for the work enqueued on its streams before the call, as
 * cudaDeviceSynchronize does.  Destroy streams before their communicator
 * (which destroys what is left). */
pcclResult_t pcclHostStreamCreate(pcclComm_t comm, pcclStream_t *stream);
/* Waits for the stream's work, then frees it. */
pcclResult_t pcclHostStreamDestroy(pcclStream_t stream);
/* fn(arg) runs on the stream's thread after its earlier work (cudaLaunchHostFunc). */
pcclResult_t pcclHostStreamLaunch(pcclStream_t stream, void (*fn)(void *), void *arg);
pcclResult_t pcclHostStreamSynchronize(pcclStream_t stream);

/* *done = 1 when the collective's last invocation has completed. */
pcclResult_t pcclTest(pcclComm_t comm, int collId, int *done);
/* Blocks until the collective's last invocation completed; returns its status. */
pcclResult_t pcclWait(pcclComm_t comm, int collId);
/* Blocks until nothing is in flight on this communicator. */
pcclResult_t pcclWaitAll(pcclComm_t comm);

/* The GPU synchronization of this communicator's device: cudaDeviceSynchronize
 * on the GPU backend; on the host backend, waits until every daemon instance
 * running at the call has quit, as a device synchronization waits for the
 * daemon kernel.  Then the invocations the GPU completed are completed on the
 * host too (statistics, pcclTest), except those with a callback, which the
 * poller thread completes. */
pcclResult_t pcclDeviceSynchronize(pcclComm_t comm);

pcclResult_t pcclCommGetStats(pcclComm_t comm, pcclStats_t *stats);
/* One daemon block's share (blocks = 1; completed and launches are the
 * communicator's): how evenly the blocks worked, e.g. the slowest block's
 * lifeNs / blockCompletions against the mean.  block in [0, stats.blocks). */
pcclResult_t pcclCommGetBlockStats(pcclComm_t comm, int block, pcclStats_t *stats);

/* Where the relaunches after a time slice (PCCL_SLICE_US) went, summed over
 * the relaunches measured (divide by relaunches).  Ns figures on the daemon's
 * clock (the GPU's globaltimer) or the host's, never compared with each
 * other.  The GPU time a relaunch takes from the collectives is about
 * blockIdleNs + deadNs + refillNs (lib/README.md, "Sharing the GPU"). */
typedef struct {
    uint64_t relaunches;  /* launches ended by their slice and relaunched, measured */
    uint64_t lateNs;      /* daemon: the slice's end (the deadline the first block took: the host's grid
                             point, a slice from its start, or half a slice at least) to the first block's cut */
    uint64_t drainNs;     /* daemon: the first block's cut to the last block's end */
    uint64_t blockIdleNs; /* daemon: a block's end to the last block's end, mean over blocks */
    uint64_t deadNs;      /* daemon: the last block's end to the relaunch's first block start: no block runs */
    uint64_t startNs;     /* daemon: the relaunch's first block start to its last block start */
    uint64_t refillNs;    /* daemon: the relaunch's first block start to its first step (any block) */
    uint64_t pickNs;      /* daemon: ... to its first collective picked (any block): a long one means
                             no work was queued (the application had not invoked yet), not a cost */
    uint64_t gapNs;       /* host: the poller saw the end, to its relaunch call (PCCL_SLICE_GAP_US, its pace) */
    uint64_t launchNs;    /* host: the relaunch call itself */
    uint64_t noStep;      /* relaunches that made no step (not in refillNs) */
    uint64_t aligned;     /* relaunches whose cut launch ended on the grid (PCCL_SLICE_ALIGN) */
    int64_t clockOffsetNs; /* the daemon's clock - the host's at a launch call, least seen lately (the
                              launch latency included): how the poller predicts a slice's end */
    uint64_t gapQueries;  /* host: stream queries made from seeing a cut launch end to its relaunch call
                             (0: the poller knows the stream idle then, and leaves the driver to the
                             waiting call) */
    int watch;            /* the watch (PCCL_WATCH_US): 0 off (or CUPTI unavailable: pccl said why on
                             stderr, once), 1 CUPTI sees the process's CUDA calls, 2 the host backend's
                             pcclDeviceSynchronize */
    uint64_t watchAsks;   /* cuts the watch asked for (a call waited PCCL_WATCH_US) */
    uint64_t ahead;       /* relaunches queued ahead, while the launch before still ran
                             (PCCL_SLICE_AHEAD_US): their gapNs is 0 and deadNs a kernel switch */
    uint64_t ends;        /* host: launch ends the poller booked (every end it saw, measured or not) */
    uint64_t endNs;       /* host: ... the time that took, the communicator's lock held (pcclRun and
                             pcclWait wait for it meanwhile) */
    uint64_t runQueries;  /* host: stream queries pcclRun made to know whether the daemon runs (a
                             driver call on the caller's thread, beside the poller's relaunch) */
} pcclSliceStats_t;
pcclResult_t pcclCommGetSliceStats(pcclComm_t comm, pcclSliceStats_t *stats);

/* Memory for buffers: cudaMalloc on the GPU backend, aligned host memory on the
 * host backend.  Use either, or your own allocations. */
pcclResult_t pcclMemAlloc(pcclComm_t comm, void **ptr, size_t bytes);
pcclResult_t pcclMemFree(pcclComm_t comm, void *ptr);

#ifdef __cplusplus
}
#endif
#endif
