/* The host backend's primitive: move (and reduce) one chunk.  The GPU's
 * block-wide version is lib/gpu/prims.cuh; both apply the same arithmetic
 * (integers wrap modulo 2^bits, as on the GPU; half and bfloat16 are reduced
 * in float and rounded to nearest even), so integer results agree bit for bit.
 *
 *   T   element type          U  unsigned twin, for wrapping sum and product
 *   W   type in which to compare and divide
 *   IN  T -> W               OUT W -> T
 */
#include "host.h"

#define REDUCE(T, U, W, IN, OUT)                                                  \
    do {                                                                          \
        const T *a = (const T *)j->a, *b = (const T *)j->b;                       \
        T *d0 = (T *)j->d0, *d1 = (T *)j->d1;                                     \
        for (uint64_t i = 0; i < j->n; i++) {                                     \
            T v = a ? a[i] : b[i];                                                \
            if (a && b) {                                                         \
                W x = IN(j->swap ? b[i] : a[i]), y = IN(j->swap ? a[i] : b[i]);   \
                switch (j->op) {                                                  \
                case 1: v = FLOATY ? OUT(x * y) : (T)(U)((U)a[i] * (U)b[i]); break; \
                case 2: v = OUT(x > y ? x : y); break;                            \
                case 3: v = OUT(x < y ? x : y); break;                            \
                default: v = FLOATY ? OUT(x + y) : (T)(U)((U)a[i] + (U)b[i]); break; \
                }                                                                 \
            }                                                                     \
            if (j->div) v = OUT(IN(v) / (W)j->div);                               \
            if (d0) d0[i] = v;                                                    \
            if (d1) d1[i] = v;                                                    \
        }                                                                         \
    } while (0)

#define ID(x) (x)

void pccl_host_exec(const pccl_job *j)
{
#define FLOATY 0
    switch (j->dtype) {
    case 0: REDUCE(int8_t, uint8_t, int32_t, ID, (int8_t)); return;
    case 1: REDUCE(uint8_t, uint8_t, uint32_t, ID, (uint8_t)); return;
    case 2: REDUCE(int32_t, uint32_t, int32_t, ID, (int32_t)); return;
    case 3: REDUCE(uint32_t, uint32_t, uint32_t, ID, (uint32_t)); return;
    case 4: REDUCE(int64_t, uint64_t, int64_t, ID, (int64_t)); return;
    case 5: REDUCE(uint64_t, uint64_t, uint64_t, ID, (uint64_t)); return;
    }
#undef FLOATY
#define FLOATY 1
    switch (j->dtype) {
    case 6: REDUCE(uint16_t, uint16_t, float, pccl_half_to_float, pccl_float_to_half); return;
    case 7: REDUCE(float, uint32_t, float, ID, (float)); return;
    case 8: REDUCE(double, uint64_t, double, ID, (double)); return;
    case 9: REDUCE(uint16_t, uint16_t, float, pccl_bf16_to_float, pccl_float_to_bf16); return;
    }
#undef FLOATY
}
