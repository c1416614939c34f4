#!/bin/bash
export CUDA_VISIBLE_DEVICES=0
O=$OUT/lb; mkdir -p $O; cd "$(dirname "$0")"; timeout 60 ./lb > $O/lb2.txt 2>&1; cat $O/lb2.txt
