"""pip install ./python  (on a machine with torch and a built libpccl: `make gpu` first).

PCCL_LIB_DIR: the folder of libpccl.so (default ../build); it is copied into
the package, which finds it through its rpath ($ORIGIN).  CUDA headers:
CUDA_HOME/include or PCCL_CUDA_INCLUDE."""
import os
import shutil

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
libdir = os.path.abspath(os.environ.get("PCCL_LIB_DIR", os.path.join(repo, "build")))
lib = os.path.join(libdir, "libpccl.so")
if not os.path.exists(lib):
    raise SystemExit(f"pccl_torch: {lib} not found: run `make gpu` in {repo}, or set PCCL_LIB_DIR")
shutil.copy(lib, os.path.join(here, "pccl_torch", "libpccl.so"))
cuda_inc = os.environ.get("PCCL_CUDA_INCLUDE") or os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include")

setup(
    name="pccl_torch",
    version="0.1.0",
    description="pccl (preemptive, deadlock-free collectives) as a torch.distributed backend",
    packages=["pccl_torch"],
    package_data={"pccl_torch": ["libpccl.so"]},
    ext_modules=[
        CppExtension(
            "pccl_torch._C",
            ["pccl_torch/csrc/backend.cpp"],
            include_dirs=[os.path.join(repo, "lib"), cuda_inc],
            library_dirs=[os.path.join(here, "pccl_torch")],
            libraries=["pccl", "c10_cuda"],
            extra_link_args=["-Wl,-rpath,$ORIGIN"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
