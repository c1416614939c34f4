#!/bin/bash
# Call 1 (one H200, main 2b525bf's pccl-perf): the host's topology, and whether the CPUs the process
# runs on move one rank's 8 B all-reduce back to back and its relaunch's launch call (issue 22).
# Unpinned runs, then the process pinned (taskset) to each NUMA node's CPUs, and to CPU pairs.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
{ lscpu; lscpu -e; numactl -H 2>&1; nvidia-smi topo -m; for n in /sys/devices/system/node/node*; do echo "$n: $(cat $n/cpulist)"; done
  b=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f'); b=${b: -12}
  echo "GPU $b local_cpulist $(cat /sys/bus/pci/devices/$b/local_cpulist 2>&1) numa_node $(cat /sys/bus/pci/devices/$b/numa_node 2>&1)"
  cat /proc/cmdline; } > $O/topo.txt 2>&1
run() { # $1: label, rest: prefix
  local l=$1; shift
  t "$@" env PCCL_SLICE_US=4000 PCCL_SLICE_LOG=$O/slice-$l.csv ./pccl-perf -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 80000 -w 500 -c 0 --timing b2b -T 30
}
for r in 1 2 3 4; do run free$r timeout 30; done
for n in /sys/devices/system/node/node*; do
  cl=$(cat $n/cpulist); nn=$(basename $n)
  for r in 1 2 3; do run $nn-$r timeout 30 taskset -c $cl; done
done
ncpu=$(nproc)
for c in 0 2 $((ncpu / 2)) $((ncpu - 2)); do
  for r in 1 2; do run cpu$c-$r timeout 30 taskset -c $c,$((c + 1)); done
done
for r in 1 2; do t timeout 60 ./all_reduce_perf -g 1 -b 8 -e 8 -n 80000 -w 500 -c 0; done
(cd $O && tar czf slice.tgz slice-*.csv && rm -f slice-*.csv)
call_end
