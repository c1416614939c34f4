"""pccl as a torch.distributed backend.

    import pccl_torch                                   # registers the backend "pccl"
    dist.init_process_group("pccl", rank=r, world_size=n, device_id=torch.device("cuda", r))

One process per GPU, ranks of one host.  all_reduce, all_gather_into_tensor,
reduce_scatter_tensor, reduce, broadcast and barrier; Work.wait() is stream
ordered (the current stream waits, the host does not).  Collectives issued
with async_op=True may be issued in a different order on every rank; same-
shaped ones that are in flight together need distinct tags:

    with pccl_torch.tag("bucket3"):
        work = dist.all_reduce(grad, async_op=True)

The compiled part (_C) comes from `pip install ./python` (against a built
libpccl: `make gpu`), or is built at first import with
torch.utils.cpp_extension.load (PCCL_LIB_DIR: the folder of libpccl.so,
default the repository's build/; the CUDA headers from CUDA_HOME, or
PCCL_CUDA_INCLUDE).
"""
import contextlib
import glob
import os

import torch
import torch.distributed as dist

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))


def _cuda_include():
    cands = [os.environ.get("PCCL_CUDA_INCLUDE", "")]
    for v in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(v):
            cands.append(os.path.join(os.environ[v], "include"))
    cands.append("/usr/local/cuda/include")
    cands += glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "include"))
    cands += glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "*", "include"))
    for c in cands:
        if c and os.path.exists(os.path.join(c, "cuda_runtime_api.h")):
            return os.path.abspath(c)
    raise ImportError("pccl_torch: no CUDA headers (cuda_runtime_api.h) found: set CUDA_HOME or PCCL_CUDA_INCLUDE")


def _jit_build():
    from torch.utils import cpp_extension

    libdir = os.path.abspath(os.environ.get("PCCL_LIB_DIR", os.path.join(_REPO, "build")))
    if not os.path.exists(os.path.join(libdir, "libpccl.so")):
        raise ImportError(f"pccl_torch: {libdir}/libpccl.so not found: run `make gpu` or set PCCL_LIB_DIR")
    incdir = os.environ.get("PCCL_INCLUDE_DIR", os.path.join(_REPO, "lib"))
    return cpp_extension.load(
        name="pccl_torch_C",
        sources=[os.path.join(_HERE, "csrc", "backend.cpp")],
        extra_include_paths=[incdir, _cuda_include()],
        extra_ldflags=[f"-L{libdir}", "-lpccl", f"-Wl,-rpath,{libdir}", "-lc10_cuda"],
        verbose=bool(os.environ.get("PCCL_TORCH_VERBOSE")),
    )


try:
    from . import _C  # built by pip install
except ImportError:
    _C = _jit_build()


def _create(store, rank, size, timeout):
    return _C.create_backend(store, rank, size)


if "PCCL" not in dist.Backend._plugins:
    dist.Backend.register_backend("pccl", _create, devices=["cuda"])


@contextlib.contextmanager
def tag(name):
    """Collectives issued inside get this tag: same-shaped collectives that
    ranks issue in different orders are told apart by it."""
    old = _C.get_tag()
    _C.set_tag(str(name))
    try:
        yield
    finally:
        _C.set_tag(old)


def _backend(group=None):
    g = group if group is not None else dist.group.WORLD
    return g._get_backend(torch.device("cuda"))


def registered(group=None):
    """The collectives this rank registered, in id order (kind,dtype,count,op,root[#tag])."""
    return _C.registered(_backend(group))


def stats(group=None):
    """pccl's counters of the group's communicator on this rank."""
    return _C.stats(_backend(group))
