// launch-call microbenchmark: host time of one launch call on an idle stream (the relaunch's case)
#include <cstdio>
#include <cstdint>
#include <chrono>
#include <vector>
#include <algorithm>
struct P { char b[312]; };
__global__ void empty1() {}
// runs ~us microseconds, then writes its end to a pinned flag (as the daemon's last block tells the host)
__global__ void __launch_bounds__(512, 2) timed(const __grid_constant__ P p, volatile int *flag, int seq, long long ns) {
  long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  long long t = t0; while (t - t0 < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) { __threadfence_system(); *flag = seq; }
}
__global__ void __launch_bounds__(512, 2) big(const __grid_constant__ P p) { if (p.b[threadIdx.x % 312] == 123 && blockIdx.x == 99999) printf("x"); }
static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> static void bench(const char *name, F launch, cudaStream_t s, int n = 300) {
  std::vector<double> t;
  for (int i = 0; i < n; i++) { cudaStreamSynchronize(s); double a = now_us(); launch(); double b = now_us(); t.push_back(b - a); }
  cudaStreamSynchronize(s);
  std::sort(t.begin(), t.end());
  printf("%-44s median %6.2f us  p10 %6.2f  p90 %6.2f  (err %s)\n", name, t[n / 2], t[n / 10], t[n * 9 / 10], cudaGetErrorString(cudaGetLastError()));
}
int main() {
  cudaSetDevice(0);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  P p = {};
  empty1<<<1, 1, 0, s>>>(); big<<<64, 512, 256, s>>>(p); cudaStreamSynchronize(s);
  bench("empty <<<1,1>>>", [&] { empty1<<<1, 1, 0, s>>>(); }, s);
  bench("daemon-like <<<64,512,256 B smem>>> 312 B param", [&] { big<<<64, 512, 256, s>>>(p); }, s);
  bench("the same after cudaSetDevice", [&] { cudaSetDevice(0); big<<<64, 512, 256, s>>>(p); }, s);
  cudaGraph_t g; cudaGraphExec_t ge;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal); big<<<64, 512, 256, s>>>(p); cudaStreamEndCapture(s, &g);
  cudaGraphInstantiate(&ge, g, 0); cudaGraphLaunch(ge, s); cudaStreamSynchronize(s);
  bench("cudaGraphLaunch of the daemon-like kernel", [&] { cudaGraphLaunch(ge, s); }, s);
  // the relaunch's case: the previous launch's end seen through a pinned flag, no synchronization
  int *flag; cudaHostAlloc(&flag, 4, cudaHostAllocMapped); *flag = 0;
  int *dflag; cudaHostGetDevicePointer(&dflag, flag, 0);
  for (int variant = 0; variant < 3; variant++) {
    std::vector<double> t; int n = 300;
    for (int i = 1; i <= n; i++) {
      timed<<<64, 512, 256, s>>>(p, dflag, i, 50000);
      while (*(volatile int *)flag != i) {}
      double a = now_us();
      if (variant == 1) cudaStreamQuery(s);
      if (variant == 2) cudaGraphLaunch(ge, s); else big<<<64, 512, 256, s>>>(p);
      t.push_back(now_us() - a);
      cudaStreamSynchronize(s);
    }
    std::sort(t.begin(), t.end());
    const char *nm[] = {"launch at the flag (no sync before)", "cudaStreamQuery + launch at the flag", "graph launch at the flag"};
    printf("%-44s median %6.2f us  p10 %6.2f  p90 %6.2f  (err %s)\n", nm[variant], t[n / 2], t[n / 10], t[n * 9 / 10], cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}
