#!/bin/bash
# A function command (Documentation/trace/ftrace.rst, "Filter commands"): tracing turns itself
# off at the first call of vfs_read, while the sched events and the function tracer (on
# ksys_read, vfs_read's caller) record. The command runs in the emulated kernel: vfs_read's
# entry nop calls ftrace_caller, and the dispatcher clears the trace array's recording bit, as
# Linux's traceoff probe does; so the last record is the ksys_read that called it.
# Run it: tracefs-sim run mountpoint_scripts/function_traceoff.sh
T=/sys/kernel/debug/tracing
echo 0 > $T/tracing_on
echo > $T/trace
echo ksys_read > $T/set_ftrace_filter
echo 'vfs_read:traceoff' >> $T/set_ftrace_filter
echo "== set_ftrace_filter:"
cat $T/set_ftrace_filter
echo function > $T/current_tracer
echo 1 > $T/events/sched/enable
echo 1 > $T/tracing_on
tracefs-sim exec cat /etc/passwd > /dev/null
echo "== tracing_on after the first vfs_read:"
cat $T/tracing_on
echo "== the last records:"
cat $T/trace | tail -n 5
echo 0 > $T/events/sched/enable
echo nop > $T/current_tracer
echo '!vfs_read:traceoff' >> $T/set_ftrace_filter
echo > $T/set_ftrace_filter
echo 1 > $T/tracing_on
