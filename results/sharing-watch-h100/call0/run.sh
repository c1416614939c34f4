# One H100, from the checkout's root with .dev/watchprobe/ staged (probe built by
#   nvcc -O2 -arch=sm_90 -std=c++17 -o probe probe.cu -lcupti -lcuda -Xlinker -rpath='$ORIGIN'
# and libcupti.so.13 beside it); output.txt is its output (the long-call lists of
# the watch modes left out).
cd .dev/watchprobe && nvidia-smi -L; ls /usr/local/cuda/lib64/libcupti* 2>&1 | head -2; ./probe overhead; ./probe watch both; ./probe watch driver; ./probe watch runtime; CUDA_MODULE_LOADING=LAZY timeout 60 ./probe off both 2>&1 | grep -v "long call"
