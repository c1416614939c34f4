# One H100: nvcc -O2 -arch=sm_90 -o gt gt.cu && ./gt (output.txt)
