#!/bin/bash
# The lead's part of a one-GPU call: the fault suite with 2 processes on the GPU; the torch backend's
# world-2 collectives test on the shared GPU, traced, with native stacks of both ranks when it hangs;
# pip install of python/ and a world-1 all-reduce through the installed package.  About 200 s.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
root=$(pwd); d=$root/.dev/lead; O=$OUT/lead; mkdir -p $O; S=$O/summary.txt L=$O/log.txt
nvidia-smi -L > $S
s() { local name=$1 lim=$2; shift 2; local t0=$SECONDS; echo "==== $name: $*" >> $L
    timeout -k 3 $lim "$@" >> $L 2>&1; local rc=$?; echo "== $name: exit $rc, $((SECONDS - t0)) s: $*" >> $S
    tail -n 60 $L | grep -E '^RESULT|FAIL|passed|failed|faults:' | tail -3 >> $S; }
cd $d && s fault-share 100 ./pccl-fault --share 2 --seeds 10
c=$d/stream; cd $c
export PCCL_LIB_DIR=$c PCCL_INCLUDE_DIR=$c/include TORCH_EXTENSIONS_DIR=/tmp/torch-ext PYTHONPATH=$c/python
[ -f /usr/local/cuda/include/cuda_runtime_api.h ] || export PCCL_CUDA_INCLUDE=$c/cuda-include
s torch-build 100 python3 -c "import pccl_torch"
# the hang: run in the background, stacks after 30 s, then let it time out
echo "==== coll-world2 (background)" >> $L
env PCCL_TORCH_TRACE=1 PCCL_TEST_SHARE_GPU=1 PCCL_TEST_TIMEOUT=50 PCCL_BLOCKS=8 timeout -k 3 70 python3 python/tests/test_backend.py test_collectives_world2 > $O/coll.log 2>&1 &
bg=$!; sleep 30
dbg=$(command -v gdb || command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
for p in $(pgrep -f "multiprocessing.spawn" ); do
    echo "==== native stacks of pid $p ($dbg)" >> $L
    timeout 40 $dbg -p $p -batch -ex "thread apply all bt 14" 2>&1 | grep -E "^Thread|^#" | head -70 >> $L
done
wait $bg; echo "== coll-world2: exit $?" >> $S; cat $O/coll.log >> $L; rm -f $O/coll.log
# pip install from the repository into a folder, then the installed package (not the JIT build) in use
cd $root/python
s pip-install 150 env PCCL_LIB_DIR=$c python3 -m pip install --no-build-isolation --no-deps --no-index --target /tmp/pp .
cd /tmp && s pip-import 60 env -u PYTHONPATH PYTHONPATH=/tmp/pp python3 -c "
import torch, torch.distributed as dist, pccl_torch, tempfile
print('pccl_torch from', pccl_torch.__file__, '_C from', pccl_torch._C.__file__)
assert pccl_torch._C.__file__.startswith('/tmp/pp'), 'not the installed extension'
torch.cuda.set_device(0)
dist.init_process_group('pccl', init_method='file://' + tempfile.mktemp(), rank=0, world_size=1)
x = torch.arange(4, dtype=torch.float32, device='cuda'); dist.all_reduce(x); print('RESULT pip-import all_reduce', x.tolist())
dist.destroy_process_group()"
echo "== total $SECONDS s" >> $S
