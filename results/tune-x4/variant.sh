#!/bin/bash
# Builds pccl-perf with lib/tune.c and lib/register.c compiled with extra defines, as
#   bash results/tune-x4/variant.sh NAME -DDEFINE=VALUE ...  ->  .dev/variants/pccl-perf-NAME
# (build/libpccl.a with those two objects replaced; `make gpu` first).  Trial builds only.
set -eu
cd "$(dirname "$0")/../.."
name=$1; shift
w=.dev/variants/$name.d; rm -rf "$w"; mkdir -p "$w"
cp build/libpccl.a "$w/libpccl.a"
inc=$(pkg-config --cflags igraph gsl jansson 2>/dev/null)
for f in tune register; do
  cc -O2 -g -std=c11 -D_GNU_SOURCE -DHAVE_INLINE -pthread $inc -fPIC -DPCCL_HAVE_CUDA -I/usr/local/cuda/include \
     "$@" -c lib/$f.c -o "$w/$f.o"
done
ar rcs "$w/libpccl.a" "$w/tune.o" "$w/register.o"
perf_src=$(ls harness/perf/*.c | grep -v -e proc.c -e slice_ab.c)
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -DPERF_HAVE_CUDA -DPERF_HAVE_NCCL -o .dev/variants/pccl-perf-$name \
    $perf_src tests/pccl/check.c harness/perf/compute.cu "$w/libpccl.a" -lnccl -lpthread
echo "$name: $*" >> .dev/variants/VARIANTS
