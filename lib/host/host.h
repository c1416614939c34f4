/* The host backend: threads stand in for a GPU's daemon blocks. */
#ifndef PCCL_HOST_H
#define PCCL_HOST_H

#include <sched.h>

#include "../internal.h"

uint64_t pccl_now_ns(void);
/* The test knobs of a block thread, read from the environment as it starts
 * (backend.c, block_main), each 0 where unset, so that tests can make one
 * emulated GPU's blocks behave as a GPU's were seen to:
 * - skew_ns, PCCL_TEST_CLOCK_SKEW_US=R:US: rank R's daemon clock runs US
 *   ahead (one GPU's globaltimer runs ahead of another's);
 * - block_us, PCCL_TEST_SLOW_BLOCK=B:US: block B of every rank sleeps US
 *   after each primitive (a ring on slow multiprocessors, for the tests of
 *   dynamic groups);
 * - start_us, PCCL_TEST_SLOW_START_US=US: every block sleeps US as its
 *   launch begins, past its clock reading (a launch as slow to start as one
 *   under compute-sanitizer's racecheck);
 * - try_us, PCCL_TEST_SLOW_TRY=B:US: block B of every rank sleeps US before
 *   each collective it tries (a block that reaches its work long after the
 *   others looked at theirs, as block 0 did under racecheck, its SQ read
 *   and hand-on slow). */
typedef struct {
    uint64_t skew_ns;
    int block_us, start_us, try_us;
} pccl_host_knobs;
extern __thread pccl_host_knobs pccl_host_test;
void pccl_host_slow(int us); /* the test knobs' sleep (backend.c) */
#define PCCL_LEADER 1
#define PCCL_MOVER 1
#define PCCL_BARRIER() ((void)0)
#define PCCL_CTRL 1
#define PCCL_CTRL_LANE 0
#define PCCL_CTRL_LANES 1
#define PCCL_CTRL_SYNC() ((void)0)
#define PCCL_NOW_NS() (pccl_now_ns() + pccl_host_test.skew_ns)
/* Emulated GPUs outnumber cores: let the peer we wait for run. */
#define PCCL_POLL_PAUSE(i) sched_yield()
#define PCCL_IDLE_PAUSE(i) sched_yield()
#define PCCL_EXEC(job)                                                                                      \
    ((job)->g_n || (job)->m_kind == PCCL_JOB_REDUCE ? pccl_host_reduce_exec(job)                                \
     : (job)->m_kind                  ? pccl_host_pairs_exec(job)                                               \
     : (job)->ll                      ? pccl_host_ll_exec(job)                                                  \
                                      : pccl_host_exec(job),                                                    \
     pccl_host_slow(pccl_host_test.block_us))
#define PCCL_SM_ID() (-1)
#define PCCL_LAUNCH_SLOW() pccl_host_slow(pccl_host_test.start_us)
#define PCCL_TRY_SLOW() pccl_host_slow(pccl_host_test.try_us)
#include "../scheduler.h"

void pccl_host_exec(const pccl_job *j);
void pccl_host_ll_exec(const pccl_job *j); /* the LL protocol's (proto_ll.c) */
/* Waits for an LL unit (its two lines); gives up, *ok = 0, once aborted (proto_ll.c) */
uint64_t pccl_host_ll_recv(const uint64_t *line, uint32_t flag, const uint32_t *abort, int *ok);
#define PCCL_HOST_PIECE 64 /* units an LL or multi-slot step handles at a time: 512 data bytes */
/* Steps over several slots, either protocol (multi.c) */
void pccl_host_reduce_exec(const pccl_job *j);
void pccl_host_pairs_exec(const pccl_job *j);
/* Emulated streams (stream.c): the backend's stream operations, the device
 * synchronization's wait for streams, and cleanup at close. */
pcclResult_t pccl_host_stream_check(pcclComm_t c, void *stream);
pcclResult_t pccl_host_stream_write(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
pcclResult_t pccl_host_stream_wait(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
pcclResult_t pccl_host_stream_copy(pcclComm_t c, void *stream, void *dst, const void *src, size_t n);
void pccl_host_streams_sync(pcclComm_t c);
void pccl_host_streams_drop(pcclComm_t c);

#endif
