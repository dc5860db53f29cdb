#!/bin/bash
# perf-tools (Debian perf-tools-unstable) on the session's own `cat`: kprobe-perf's probe on the
# open path with its filename, and funcgraph-perf's call graph under vfs_read.
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_perf_tools.sh
# perf-tools take a lock file, /var/tmp/.ftrace-lock, meant for the host's real ftrace: a private
# /var/tmp (this session's mount namespace only) keeps the two apart.
mount -t tmpfs perf-tools-lock /var/tmp
T=/sys/kernel/tracing
# a cat once the tool has set its tracing up (it then traces for 5 s: on a busy box the kernel
# takes the session's calls a while after the host made them)
cat_when() { for i in $(seq 600); do [ "$(< $1)" = "$2" ] 2>/dev/null && break; sleep 0.1; done; cat /etc/hostname > /dev/null; }
cat_when $T/events/kprobes/do_sys_openat2/enable 1 &
echo "== kprobe:"
timeout 90 kprobe-perf -d 5 'p:do_sys_openat2 filename=+0(%si):string' 2>&1 | grep ' cat-' | grep -m 3 filename=
wait
cat_when $T/current_tracer function_graph &
echo "== funcgraph:"
timeout 90 funcgraph-perf -d 5 vfs_read 2>&1 | grep -m 5 -E 'vfs_read|rw_verify_area'
wait
