/* The module probe.cu loads with cuModuleLoadData (compiled to a cubin). */
extern "C" __global__ void modk(int *p) { if (p) *p = 7; }
