#!/bin/bash
# Counting calls of one kernel function with the function tracer: a program calls getuid()
# 36 times, and the trace holds one __do_sys_getuid line per call (and the shell's own, which
# calls getuid() while it looks for the command in $PATH: the count is of the program's).
# Run it: tracefs-sim run mountpoint_scripts/getuid_function_count.sh
cd /sys/kernel/tracing
echo 0 > tracing_on
echo > trace
echo __do_sys_getuid > set_ftrace_filter
echo function > current_tracer
echo 1 > tracing_on
tracefs-sim exec getuid-loop 36 > /dev/null
echo 0 > tracing_on

echo "== __do_sys_getuid calls recorded:"
grep getuid-loop trace | grep -c __do_sys_getuid
echo "== the first of them:"
grep getuid-loop trace | grep -m1 __do_sys_getuid

echo nop > current_tracer
echo > set_ftrace_filter
echo 1 > tracing_on
