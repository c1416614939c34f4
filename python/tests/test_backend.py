"""The "pccl" torch.distributed backend: collectives, stream order, identity.

World size 1 always (one GPU); world size 2 on two GPUs, or as two processes
on GPU 0 with PCCL_TEST_SHARE_GPU=1 (pccl allows it: PCCL_DEVICE_OF_RANK is
taken from each rank's current device).  Each test runs its ranks as fresh
processes (spawn), so a failure in one cannot leave a group behind."""
import os
import tempfile
import traceback
import zlib

import contextlib
import re
import sys

try:  # runs under pytest, or alone (python3 tests/test_backend.py) where pytest is missing
    import pytest
except ImportError:
    pytest = None
try:
    import torch
    import torch.multiprocessing as mp
except ImportError:
    torch = None


class Skip(Exception):
    pass


def skip(reason):
    if pytest:
        pytest.skip(reason)
    raise Skip(reason)


@contextlib.contextmanager
def raises(exc, match):
    try:
        yield
    except exc as e:
        assert re.search(match, str(e)), f"{exc.__name__} without '{match}': {e}"
        return
    raise AssertionError(f"no {exc.__name__} raised (expected one matching '{match}')")


def need_gpu():
    if torch is None:
        skip("torch is not installed")
    if not torch.cuda.is_available():
        skip("no CUDA GPU")


def _world2_devices():
    if torch.cuda.device_count() >= 2:
        return [0, 1]
    if os.environ.get("PCCL_TEST_SHARE_GPU") == "1":
        return [0, 0]
    return None


def _entry(fn, rank, world, devs, initfile, q):
    import faulthandler

    faulthandler.enable()  # a crash in the extension prints where it happened
    faulthandler.dump_traceback_later(float(os.environ.get("PCCL_TEST_TIMEOUT", "300")) - 5, exit=False)
    try:
        import torch.distributed as dist

        import pccl_torch  # noqa: F401  registers "pccl"

        torch.cuda.set_device(devs[rank])
        dist.init_process_group("pccl", init_method=f"file://{initfile}", rank=rank, world_size=world)
        fn(rank, world)
        dist.destroy_process_group()
        q.put((rank, None))
    except BaseException:  # reported to the parent
        q.put((rank, traceback.format_exc()))


def run(fn, world, devs=None):
    devs = devs or list(range(world))
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    initfile = tempfile.mktemp(prefix="pccl-torch-test-")
    ps = [ctx.Process(target=_entry, args=(fn, r, world, devs, initfile, q)) for r in range(world)]
    for p in ps:
        p.start()
    errs = []
    limit = float(os.environ.get("PCCL_TEST_TIMEOUT", "300"))
    try:
        for _ in ps:
            rank, err = q.get(timeout=limit)
            if err:
                errs.append(f"rank {rank}:\n{err}")
    except Exception:  # queue.Empty: a rank hung or died
        errs.append(f"no answer from every rank within {limit:g} s (PCCL_TEST_TIMEOUT): a hang or a crash")
    for p in ps:
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
            p.join()
        if p.exitcode:
            errs.append(f"a rank's process ended with exit code {p.exitcode} (negative: killed by that signal)")
    assert not errs, "\n".join(errs)


def world2():
    need_gpu()
    devs = _world2_devices()
    if devs is None:
        skip("needs 2 GPUs, or PCCL_TEST_SHARE_GPU=1 for two processes on one")
    return devs


# ---- the bodies (module level: spawn pickles them by name) ----


def body_collectives(rank, world):
    import torch.distributed as dist

    dev = torch.device("cuda", torch.cuda.current_device())
    n = 1000
    x = torch.arange(n, dtype=torch.float32, device=dev) + rank
    dist.all_reduce(x)
    want = world * torch.arange(n, dtype=torch.float32, device=dev) + sum(range(world))
    assert torch.equal(x, want), "all_reduce sum"
    y = torch.full((n,), float(rank + 1), device=dev)
    dist.all_reduce(y, op=dist.ReduceOp.MAX)
    assert torch.all(y == world), "all_reduce max"
    z = torch.full((8,), 2 * (rank + 1), dtype=torch.int64, device=dev)
    dist.all_reduce(z, op=dist.ReduceOp.AVG)
    assert torch.all(z == (world + 1)), f"all_reduce avg int64: {z}"
    inp = torch.full((5,), float(rank), device=dev, dtype=torch.bfloat16)
    out = torch.empty(5 * world, device=dev, dtype=torch.bfloat16)
    dist.all_gather_into_tensor(out, inp)
    assert torch.equal(out.float(), torch.arange(world, device=dev).repeat_interleave(5).float()), "all_gather"
    big = torch.arange(4 * world, dtype=torch.float16, device=dev) * (rank + 1)
    part = torch.empty(4, dtype=torch.float16, device=dev)
    dist.reduce_scatter_tensor(part, big)
    s = sum(r + 1 for r in range(world))
    assert torch.equal(part, (torch.arange(4 * world, dtype=torch.float16, device=dev) * s)[rank * 4:(rank + 1) * 4])
    r = torch.full((3,), rank + 1.0, dtype=torch.float64, device=dev)
    dist.reduce(r, dst=world - 1)
    if rank == world - 1:
        assert torch.all(r == s), "reduce at root"
    b = torch.full((7,), rank * 10, dtype=torch.int32, device=dev)
    dist.broadcast(b, src=world - 1)
    assert torch.all(b == (world - 1) * 10), "broadcast"
    dist.barrier(device_ids=[torch.cuda.current_device()])


def body_stream_order(rank, world):
    """The input is written by the current stream after a long GPU sleep; the
    result is read by the stream after wait(), with no host synchronization
    in between: a collective that read too early, or a consumer that ran
    before completion, gives a wrong sum."""
    import torch.distributed as dist

    dev = torch.device("cuda", torch.cuda.current_device())
    for it in range(5):
        t = torch.zeros(1 << 16, device=dev)
        torch.cuda._sleep(50_000_000)  # tens of ms of GPU time before the input exists
        t.fill_(float(rank + 1 + it))
        work = dist.all_reduce(t, async_op=True)
        work.wait()  # stream-ordered: the host goes on at once
        u = t * 2  # queued after the wait
        want = 2.0 * sum(r + 1 + it for r in range(world))
        assert torch.all(u == want).item(), f"iteration {it}: {u[:4]} != {want}"


def body_identity(rank, world):
    """Ranks meet collectives first in different orders and interleave tagged
    same-shape ones differently: the ids agree, the results are exact; two
    untagged same-shape collectives in flight together are refused."""
    import torch.distributed as dist

    import pccl_torch

    dev = torch.device("cuda", torch.cuda.current_device())
    a = torch.full((100,), 1.0 + rank, device=dev)
    b = torch.full((300,), 10.0 * (rank + 1), device=dev)
    order = [a, b] if rank % 2 == 0 else [b, a]
    works = [dist.all_reduce(t, async_op=True) for t in order]
    for w in works:
        w.wait()
    s = sum(range(1, world + 1))
    assert torch.all(a == s) and torch.all(b == 10 * s)
    # same shape, tagged, opposite orders on odd ranks
    xs = [torch.full((256,), float(100 * k + rank), device=dev) for k in range(4)]
    ks = list(range(4)) if rank % 2 == 0 else list(reversed(range(4)))
    works = []
    for k in ks:
        with pccl_torch.tag(f"x{k}"):
            works.append(dist.all_reduce(xs[k], async_op=True))
    for w in works:
        w.wait()
    for k in range(4):
        assert torch.all(xs[k] == world * 100 * k + sum(range(world))), f"tagged x{k}: {xs[k][:3]}"
    names = pccl_torch.registered()
    # compared through the GPU (the group has no CPU backend)
    h = torch.tensor([zlib.crc32("\n".join(names).encode())], dtype=torch.int64, device=dev)
    hs = torch.empty(world, dtype=torch.int64, device=dev)
    dist.all_gather_into_tensor(hs, h)
    assert len(set(hs.tolist())) == 1, f"ranks registered different collectives: {names}"
    # untagged, same shape, both in flight: refused on the second
    c1 = torch.ones(64, device=dev)
    c2 = torch.ones(64, device=dev)
    # registered first, so that the first call below is issued at once (on
    # one H100, a first call that also registered completed before the
    # second was issued, when registration's copy still waited for the
    # default stream's sleep)
    dist.all_reduce(c2, async_op=True).wait()
    torch.cuda.synchronize()
    c2.fill_(1)
    torch.cuda._sleep(200_000_000)  # keeps the first from completing
    w1 = dist.all_reduce(c1, async_op=True)
    with raises(RuntimeError, "untagged"):
        dist.all_reduce(c2, async_op=True)
    w1.wait()
    torch.cuda.synchronize()
    assert torch.all(c1 == world)


def test_collectives_world1():
    need_gpu()
    run(body_collectives, 1)


def test_stream_order_world1():
    need_gpu()
    run(body_stream_order, 1)


def test_identity_world1():
    need_gpu()
    run(body_identity, 1)


def test_collectives_world2():
    run(body_collectives, 2, world2())


def test_stream_order_world2():
    run(body_stream_order, 2, world2())


def test_identity_world2():
    run(body_identity, 2, world2())


if __name__ == "__main__":
    passed = failed = skipped = 0
    only = sys.argv[1:]  # test names to run (default: all)
    for name in only:
        if not name.startswith("test_") or not callable(globals().get(name)):
            sys.exit(f"test_backend.py: no test named '{name}'")
    for name, fn in list(globals().items()):
        if not name.startswith("test_") or not callable(fn) or (only and name not in only):
            continue
        try:
            fn()
            passed += 1
            print(f"{name}: passed", flush=True)
        except (Skip, *((pytest.skip.Exception,) if pytest else ())) as e:
            skipped += 1
            print(f"{name}: skipped ({e})", flush=True)
        except BaseException as e:  # noqa: BLE001
            failed += 1
            print(f"{name}: FAILED\n{e}", flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)
