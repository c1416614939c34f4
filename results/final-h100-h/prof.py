# Does the watch's CUPTI subscription keep PyTorch's profiler out?  pccl
# (libpccl.so through ctypes, one rank) alive with PCCL_WATCH_US as given,
# then torch.profiler over 5 matmuls: the CUDA kernels it recorded; again
# after pcclCommDestroy (the subscription released).
import ctypes, os, sys
os.environ["PCCL_WATCH_US"] = sys.argv[1] if len(sys.argv) > 1 else "100"
import torch
from torch.profiler import profile, ProfilerActivity
lib = ctypes.CDLL(os.path.abspath("stream/libpccl.so"))
x = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()
def prof(label):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(5):
            y = x @ x
        torch.cuda.synchronize()
    k = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print(f"PROF {label}: {len(k)} CUDA kernel events recorded", flush=True)
c = ctypes.c_void_p()
print("pcclCommInitAll:", lib.pcclCommInitAll(ctypes.byref(c), 1, None), flush=True)
prof(f"pccl alive, PCCL_WATCH_US={os.environ['PCCL_WATCH_US']}")
lib.pcclCommDestroy(c)
prof("pccl destroyed")
