#!/bin/bash
# Brendan Gregg's `tpoint` (Debian perf-tools-unstable: /usr/sbin/tpoint-perf), unmodified, on the
# simulator: it finds the mount at /sys/kernel/debug/tracing, as on a real kernel.
# Run it: tracefs-sim run --workload none mountpoint_scripts/perf_tools_tpoint.sh
set -e
# tpoint takes a lock file, /var/tmp/.ftrace-lock, meant for the host's real ftrace: a private
# /var/tmp (this session's mount namespace only) keeps the two apart.
mount -t tmpfs perf-tools-lock /var/tmp

echo "== tracepoints (tpoint -l | grep sched):"
tpoint-perf -l | grep '^sched:'

echo "== one second of sched_switch, buffered, where the CPU left idle (a filter):"
timeout 30 tpoint-perf -d 1 sched:sched_switch 'prev_pid == 0' | head -5

echo "== getuid() calls of a program, streamed from trace_pipe until Ctrl-C (SIGINT):"
(sleep 2; tracefs-sim exec getuid-loop 5 > /dev/null) &
timeout -s INT 6 tpoint-perf syscalls:sys_enter_getuid || [ $? = 124 ]
wait
