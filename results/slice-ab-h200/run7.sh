#!/bin/bash
# Call 7: the grid's phase (PCCL_SLICE_PHASE_US, 500 us by default: the working tree at 2b525bf + the
# knob).  The kernel's tick rate (the local timer interrupts of a busy CPU in 2 s); pccl-slice-ab at 8 B
# and 2 MiB: the slice on the old grid (phase 0) against the new (both sliced), and the new against
# none, three processes each at 8 B; then grid.py's pace by place on the grid with phase 500.
set -u
export NCCL_NVLS_ENABLE=0
cd .dev/aff
. ./call.sh
call_begin d
{ grep -E "LOC" /proc/interrupts | tr -s ' ' | cut -c1-200; taskset -c 3 timeout 2 sh -c 'while :; do :; done';
  grep -E "LOC" /proc/interrupts | tr -s ' ' | cut -c1-200; uname -a; ls /boot 2>&1 | head; } > $O/tick.txt 2>&1
for k in 1 2 3; do
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20 --slice-us 4000 --base-us 4000 --a-env PCCL_SLICE_PHASE_US=500 --b-env PCCL_SLICE_PHASE_US=0
  t timeout 60 ./pccl-slice-ab -b 8 -n 20000 -r 20
done
t timeout 60 ./pccl-slice-ab -b 2M -n 20000 -r 20 --slice-us 4000 --base-us 4000 --a-env PCCL_SLICE_PHASE_US=500 --b-env PCCL_SLICE_PHASE_US=0
t timeout 60 ./pccl-slice-ab -b 2M -n 20000 -r 20
t timeout 60 env PCCL_SLICE_LOG=$O/slice-phase.csv ./pccl-perf-phase -g 1 --lib pccl --coll all_reduce -b 8 -e 8 -n 600000 -w 500 -c 0 --timing b2b -T 60 --pccl-times $O/times-phase.csv
python3 grid.py $O/times-phase.csv > $O/grid-phase.txt
rm -f $O/times-phase.csv
gzip -9 $O/slice-phase.csv
call_end
