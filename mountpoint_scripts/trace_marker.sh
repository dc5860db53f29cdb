#!/bin/bash
# Writing into the trace from user space (Documentation/trace/ftrace.rst, "trace_marker"):
# the line lands between the kernel's own events, stamped with the writer's pid.
# Run it: tracefs-sim run mountpoint_scripts/trace_marker.sh
cd /sys/kernel/tracing
echo > trace
echo 1 > events/syscalls/sys_enter_getuid/enable
echo "before the program" > trace_marker
tracefs-sim exec getuid-loop 2 > /dev/null
echo "after the program" > trace_marker
echo 0 > events/syscalls/sys_enter_getuid/enable
cat trace

echo "== with the markers option off, writes are refused:"
echo 0 > options/markers
echo "lost" > trace_marker
echo 1 > options/markers
