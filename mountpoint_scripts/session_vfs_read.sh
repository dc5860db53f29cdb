#!/bin/bash
# The function tracer on vfs_read while the session's own `cat` reads a file: the shell and
# the commands it runs are tasks of the emulated kernel (README: "Your own processes are the
# emulated kernel's tasks"), so the trace shows cat's reads as it would on Linux.
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_vfs_read.sh
cd /sys/kernel/tracing
echo 0 > tracing_on
echo > trace
echo vfs_read > set_ftrace_filter
echo function > current_tracer
echo 1 > tracing_on
cat /etc/passwd > /dev/null
echo 0 > tracing_on
echo "== cat's reads:"
grep ' cat-' trace
echo nop > current_tracer
echo > set_ftrace_filter
echo 1 > tracing_on
