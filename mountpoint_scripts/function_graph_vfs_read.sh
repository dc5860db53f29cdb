#!/bin/bash
# The function_graph tracer from vfs_read down (Documentation/trace/ftrace.rst,
# set_graph_function): every function vfs_read calls, nested, with how long each took.
# Run it: tracefs-sim run mountpoint_scripts/function_graph_vfs_read.sh
echo 0 > /sys/kernel/debug/tracing/tracing_on
echo > /sys/kernel/debug/tracing/trace
echo vfs_read > /sys/kernel/debug/tracing/set_graph_function
echo function_graph > /sys/kernel/debug/tracing/current_tracer
echo 1 > /sys/kernel/debug/tracing/tracing_on
tracefs-sim exec cat /etc/passwd > /dev/null
echo 0 > /sys/kernel/debug/tracing/tracing_on
cat /sys/kernel/debug/tracing/trace | head -n 40
echo nop > /sys/kernel/debug/tracing/current_tracer
echo > /sys/kernel/debug/tracing/set_graph_function
echo 1 > /sys/kernel/debug/tracing/tracing_on
