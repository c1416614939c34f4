#!/bin/bash
# Call 4 (one H200): probe2 again, without wn (refused in call 3), 8 B-512 MiB by factors of 4, three times.
set -u
cd .dev/oc
. ./call.sh
call_begin d
for r in 1 2 3; do t timeout 100 ./probe2 -n 200; done
call_end
