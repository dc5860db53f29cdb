#!/bin/bash
# The function tracer limited to one function (Documentation/trace/ftrace.rst): every call of
# vfs_read, with its caller. The kernel's entry nop of vfs_read becomes a call to
# ftrace_caller while the tracer is on (see `tracefs-sim disasm vfs_read`).
# Run it: tracefs-sim run mountpoint_scripts/function_vfs_read.sh
echo 0 > /sys/kernel/debug/tracing/tracing_on
echo > /sys/kernel/debug/tracing/trace
echo function > /sys/kernel/debug/tracing/current_tracer
echo vfs_read > /sys/kernel/debug/tracing/set_ftrace_filter
echo 1 > /sys/kernel/debug/tracing/tracing_on
tracefs-sim exec cat /etc/passwd > /dev/null
cat /sys/kernel/debug/tracing/trace | head -n 20
echo 0 > /sys/kernel/debug/tracing/tracing_on
echo nop > /sys/kernel/debug/tracing/current_tracer
