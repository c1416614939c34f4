/* The host backend: threads stand in for a GPU's daemon blocks. */
#ifndef PCCL_HOST_H
#define PCCL_HOST_H

#include <sched.h>

#include "../internal.h"

uint64_t pccl_now_ns(void);
/* The daemon's clock: the host's, plus the test knob PCCL_TEST_CLOCK_SKEW_US=
 * R:US for rank R's block threads (its daemon clock runs US ahead, as one
 * GPU's globaltimer runs ahead of another's; backend.c sets it per thread). */
extern __thread uint64_t pccl_host_skew_ns;
void pccl_host_slow(int us); /* the test knobs' sleep (backend.c) */
#define PCCL_LEADER 1
#define PCCL_MOVER 1
#define PCCL_BARRIER() ((void)0)
#define PCCL_CTRL 1
#define PCCL_CTRL_LANE 0
#define PCCL_CTRL_LANES 1
#define PCCL_CTRL_SYNC() ((void)0)
#define PCCL_NOW_NS() (pccl_now_ns() + pccl_host_skew_ns)
/* Emulated GPUs outnumber cores: let the peer we wait for run. */
#define PCCL_POLL_PAUSE(i) sched_yield()
#define PCCL_IDLE_PAUSE(i) sched_yield()
/* After each primitive, pccl_host_slow(slow_us_): the includer (backend.c's
 * block thread) declares slow_us_, from the test knob PCCL_TEST_SLOW_BLOCK=
 * B:US (block B of every rank sleeps US microseconds after each primitive:
 * a ring on slow multiprocessors, for the tests of dynamic groups). */
#define PCCL_EXEC(job)                                                                                      \
    ((job)->g_n ? pccl_host_gather_exec(job) : (job)->ll ? pccl_host_ll_exec(job) : pccl_host_exec(job),      \
     pccl_host_slow(slow_us_))
#define PCCL_SM_ID() (-1)
/* After pccl_begin, pccl_host_slow(slow_start_us_): block_main declares it
 * from the test knob PCCL_TEST_SLOW_START_US=US (every block of every rank
 * sleeps US microseconds as its launch begins, past its clock reading: a
 * launch as slow to start as one under compute-sanitizer's racecheck). */
#define PCCL_LAUNCH_SLOW() pccl_host_slow(slow_start_us_)
/* Before each collective it tries, block B of every rank sleeps US
 * microseconds (the test knob PCCL_TEST_SLOW_TRY=B:US): a block that
 * reaches its work long after the others looked at theirs, as block 0 did
 * under compute-sanitizer's racecheck (its SQ read and hand-on slow). */
extern __thread int pccl_host_slow_try_us;
#define PCCL_TRY_SLOW() pccl_host_slow(pccl_host_slow_try_us)
#include "../scheduler.h"

void pccl_host_exec(const pccl_job *j);
void pccl_host_ll_exec(const pccl_job *j); /* the LL protocol's (proto_ll.c) */
void pccl_host_gather_exec(const pccl_job *j); /* PCCL_GATHER's, either protocol (proto_ll.c) */
/* Emulated streams (stream.c): the backend's stream operations, the device
 * synchronization's wait for streams, and cleanup at close. */
pcclResult_t pccl_host_stream_check(pcclComm_t c, void *stream);
pcclResult_t pccl_host_stream_write(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
pcclResult_t pccl_host_stream_wait(pcclComm_t c, void *stream, uint64_t *p, uint64_t v);
void pccl_host_streams_sync(pcclComm_t c);
void pccl_host_streams_drop(pcclComm_t c);

#endif
