"""One process, world size 1, step by step with a line after each step (and
faulthandler), to locate a fault of the backend on a GPU host:
    PYTHONPATH=python python3 -X faulthandler python/tests/diag.py"""
import os
import sys
import tempfile
import time


def say(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


say("importing torch")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

torch.cuda.set_device(0)
say("importing pccl_torch")
import pccl_torch  # noqa: E402

say("init_process_group")
dist.init_process_group("pccl", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
say("all_reduce")
x = torch.ones(4, device="cuda")
w = dist.all_reduce(x, async_op=True)
say("wait")
w.wait()
say("synchronize")
torch.cuda.synchronize()
say(f"result {x.tolist()}")
say(f"registered {pccl_torch.registered()} stats {pccl_torch.stats()}")
say("barrier")
dist.barrier(device_ids=[0])
say("destroy")
dist.destroy_process_group()
say("done")
sys.exit(0 if x.tolist() == [1.0] * 4 else 4)
