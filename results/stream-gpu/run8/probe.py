"""Which collective of body_collectives hangs with 2 ranks sharing GPU 0: each op printed and synchronized."""
import os, sys, tempfile, time
sys.path.insert(0, os.path.join(os.environ["PCCL_TESTS"]))
import torch
import torch.multiprocessing as mp

def body(rank, world, initfile, q):
    import faulthandler
    faulthandler.dump_traceback_later(20, exit=True)
    import torch.distributed as dist
    import pccl_torch  # noqa
    torch.cuda.set_device(0)
    dist.init_process_group("pccl", init_method=f"file://{initfile}", rank=rank, world_size=world)
    dev = torch.device("cuda", 0)
    def step(name, fn):
        t = time.time(); fn(); torch.cuda.synchronize()
        print(f"rank {rank}: {name} done in {1e3 * (time.time() - t):.1f} ms", flush=True)
    x = torch.ones(1000, device=dev); step("all_reduce f32", lambda: dist.all_reduce(x))
    r = torch.full((3,), rank + 1.0, dtype=torch.float64, device=dev); step("reduce f64 dst=1", lambda: dist.reduce(r, dst=1))
    print(f"rank {rank}: reduce result {r.tolist()}", flush=True)
    b = torch.full((7,), rank * 10, dtype=torch.int32, device=dev); step("broadcast i32 src=1", lambda: dist.broadcast(b, src=1))
    print(f"rank {rank}: broadcast result {b.tolist()}", flush=True)
    b2 = torch.full((7,), rank * 10, dtype=torch.int32, device=dev); step("broadcast i32 src=0", lambda: dist.broadcast(b2, src=0))
    r2 = torch.full((3,), rank + 1.0, dtype=torch.float32, device=dev); step("reduce f32 dst=0", lambda: dist.reduce(r2, dst=0))
    step("barrier", lambda: dist.barrier())
    dist.destroy_process_group()
    q.put((rank, "ok"))

if __name__ == "__main__":
    ctx = mp.get_context("spawn"); q = ctx.Queue(); f = tempfile.mktemp()
    ps = [ctx.Process(target=body, args=(r, 2, f, q)) for r in range(2)]
    [p.start() for p in ps]; [p.join(30) for p in ps]
    print("exit codes", [p.exitcode for p in ps], flush=True)
