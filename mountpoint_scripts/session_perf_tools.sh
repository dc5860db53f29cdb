#!/bin/bash
# perf-tools (Debian perf-tools-unstable) on the session's own `cat`: kprobe-perf's probe on the
# open path with its filename, and funcgraph-perf's call graph under vfs_read.
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_perf_tools.sh
(sleep 1; cat /etc/hostname > /dev/null) &
echo "== kprobe:"
timeout 10 kprobe-perf -d 2 'p:do_sys_openat2 filename=+0(%si):string' 2>&1 | grep ' cat-' | grep -m 3 filename=
wait
(sleep 1; cat /etc/hostname > /dev/null) &
echo "== funcgraph:"
timeout 10 funcgraph-perf -d 2 vfs_read 2>&1 | grep -m 5 -E 'vfs_read|rw_verify_area'
wait
