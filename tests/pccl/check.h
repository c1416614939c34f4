/* check.h: what a pccl test checks results against.
 *
 * Backend-free helpers, shared by the host-backend suite (tests/pccl) and the
 * GPU tests: a deterministic input per (collective, rank, element, seed) for
 * every data type, a CPU reference of all five collectives under every op, a
 * comparison (integers bit for bit, floating types within ck_tolerance()), and
 * a message naming the first mismatch.  Nothing here calls pccl: buffers are
 * plain host memory (stage them to and from the device as needed).
 *
 * Semantics as NCCL:
 *   count        all-gather: sendcount per rank (recv holds nranks*count);
 *                reduce-scatter: recvcount per rank (send holds nranks*count);
 *                the others: elements of send and recv.
 *   reduce       only the root's recvbuff is written;
 *   broadcast    only the root's sendbuff is read;
 *   in place     all-reduce, reduce, broadcast: sendbuff == recvbuff;
 *                all-gather: sendbuff == recvbuff + rank*count;
 *                reduce-scatter: recvbuff == sendbuff + rank*count.
 *   ops          sum, prod, max, min; avg = sum, then divided by nranks
 *                (integer division, truncating, for integer types).  Integer
 *                sum and prod wrap modulo 2^bits.
 *
 * Inputs: integer types get full-range pseudo-random values (so sums and
 * products wrap); floating types get small integers in [-16, 16] (prod: one
 * of -2, -1, 1, 2), so that every partial sum and product of up to 64 ranks is
 * exact in every floating type, bfloat16 included, in any reduction order.
 * Only avg's final division can round, hence the tolerance.
 */
#ifndef PCCL_TEST_CHECK_H
#define PCCL_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/pccl.h"

typedef struct {
    pcclCollType_t type;
    pcclDataType_t dtype;
    pcclRedOp_t op; /* ignored by all-gather and broadcast */
    int root;       /* reduce and broadcast */
    size_t count;   /* as registered (see above) */
    int nranks;
} ck_coll;

/* ---- names and sizes ---------------------------------------------------- */
size_t ck_type_size(pcclDataType_t t);
int ck_is_float(pcclDataType_t t);
/* Relative tolerance of floating types (0 for integers: bit for bit). */
double ck_tolerance(pcclDataType_t t);
const char *ck_type_name(pcclDataType_t t);
const char *ck_op_name(pcclRedOp_t op);
const char *ck_coll_name(pcclCollType_t t);
int ck_has_op(pcclCollType_t t);
/* "allreduce int32 sum count=7 nranks=3" (root for reduce and broadcast). */
const char *ck_describe(const ck_coll *c, char *buf, size_t len);

/* ---- buffers -------------------------------------------------------------- */
size_t ck_send_count(const ck_coll *c); /* elements in a sendbuff */
size_t ck_recv_count(const ck_coll *c); /* elements in a recvbuff */
size_t ck_send_bytes(const ck_coll *c);
size_t ck_recv_bytes(const ck_coll *c);
int ck_reads_send(const ck_coll *c, int rank);  /* 0: broadcast, not root */
int ck_writes_recv(const ck_coll *c, int rank); /* 0: reduce, not root */

/* In place: one buffer of ck_inplace_bytes() bytes holds both; *send and
 * *recv are set inside it as NCCL defines. */
size_t ck_inplace_bytes(const ck_coll *c);
void ck_inplace_ptrs(const ck_coll *c, int rank, void *buf, void **send, void **recv);

/* ---- inputs ---------------------------------------------------------------- */
/* Element i of rank's sendbuff (ck_type_size bytes into *dst). */
void ck_input_elem(const ck_coll *c, int rank, uint64_t seed, size_t i, void *dst);
void ck_fill_send(const ck_coll *c, int rank, uint64_t seed, void *send);
/* A byte pattern (0xA5) that the collective never produces by chance here. */
void ck_fill_sentinel(void *buf, size_t bytes);
/* Out of place (inplace 0): fills send (may be NULL where not read) with the
 * input and recv (may be NULL where not written) with the sentinel.  In place
 * (inplace 1): `send` is the single buffer of ck_inplace_bytes(); recv is
 * ignored; the input goes where ck_inplace_ptrs puts sendbuff, the rest of
 * the buffer gets the sentinel. */
void ck_prepare(const ck_coll *c, int rank, uint64_t seed, int inplace, void *send, void *recv);

/* ---- the reference ------------------------------------------------------- */
/* What rank's recvbuff (ck_recv_count elements) must hold afterwards, with the
 * buffers prepared by ck_prepare.  (Reduce, not root: untouched, that is the
 * sentinel out of place and the rank's own input in place.) */
void ck_expected(const ck_coll *c, int rank, uint64_t seed, int inplace, void *out);
/* Number of elements of got that differ from expected; if any, msg (when not
 * NULL) describes the first. */
size_t ck_compare(const ck_coll *c, int rank, const void *expected, const void *got, char *msg, size_t len);
/* ck_expected, then ck_compare. */
size_t ck_verify(const ck_coll *c, int rank, uint64_t seed, int inplace, const void *got, char *msg, size_t len);

/* ---- test plumbing (host threads only, no pccl) --------------------------- */
/* PCCL_TEST_QUICK=1 in the environment: cut iteration counts. */
int ck_quick(void);
/* n, or about n/10 (at least lo) in quick mode. */
int ck_scaled(int n, int lo);
uint64_t ck_rand(uint64_t *state); /* splitmix64 */
void ck_shuffle(int *v, int n, uint64_t seed);
double ck_now(void); /* monotonic seconds */
void ck_sleep_ms(int ms);
void ck_sleep_us(long us);

/* A watchdog for tests that could hang: once armed, if ck_watchdog_kick() is
 * not called for `seconds`, it prints `what`, calls dump(arg) (e.g. to print
 * statistics) and aborts the process, so a deadlock fails loudly instead of
 * hanging the run.  One armed at a time. */
void ck_watchdog_arm(const char *what, double seconds, void (*dump)(void *), void *arg);
void ck_watchdog_kick(void);
void ck_watchdog_disarm(void);

#endif
