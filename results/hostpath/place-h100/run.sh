#!/bin/bash
export NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES=0
cd .dev; O=$OUT/pl; mkdir -p $O; L=$O/log.txt
P="-g 1 --lib pccl --coll all_reduce -b 8 -e 512K -f 4 -n 1000 -w 50 -c 1 --timing all"
for i in 1 2; do for sp in 0 2 1; do
 echo "== perf spread=$sp" >> $L; PCCL_SPREAD=$sp timeout 40 ./pl/pccl-perf $P >> $L 2>&1
done; done
echo "== nt b2b" >> $L; timeout 20 ./final4/nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 1000 -w 50 -z 0 >> $L 2>&1
echo "== nt rt" >> $L; timeout 20 ./final4/nt/all_reduce_perf -g 1 -b 8 -e 512K -f 4 -n 1000 -w 50 -z 1 >> $L 2>&1
echo "== d16 spread=2" >> $L; PCCL_SPREAD=2 timeout 30 ./pl/pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8K -f 4 -n 1000 -w 50 -c 1 --timing b2b --pccl-depth 16 >> $L 2>&1
echo "== gpu-test spread=2" >> $L; PCCL_SPREAD=2 timeout 100 ./pl/pccl-gpu-test --gpus 1 >> $L 2>&1; echo "exit $?" >> $L
echo "== memcheck spread=2" >> $L; PCCL_SPREAD=2 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ./pl/pccl-gpu-test --gpus 1 --quick --max-bytes 1M > $O/memcheck.txt 2>&1; echo "exit $?" >> $L; tail -3 $O/memcheck.txt >> $L
