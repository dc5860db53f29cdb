#!/bin/bash
# An event trigger (Documentation/trace/events.rst, "Event triggers"): tracing turns itself off
# at the first getuid() of the program getuid-loop (the session's shell makes its own), while the sched and raw_syscalls events record; then
# the end of the trace shows what led to it. The trigger runs in the emulated kernel, in the
# raw_syscalls:sys_enter tracepoint: its filter is tested on the record, and traceoff, a post
# trigger, clears the trace array's recording bit after that record is committed.
# Run it: tracefs-sim run mountpoint_scripts/trigger_traceoff.sh
T=/sys/kernel/tracing
echo > $T/trace
echo 1 > $T/events/sched/enable
echo 1 > $T/events/raw_syscalls/enable
echo 'traceoff:1 if id == 102 && comm == "getuid-loop"' > $T/events/raw_syscalls/sys_enter/trigger
echo "== trigger:"
cat $T/events/raw_syscalls/sys_enter/trigger
tracefs-sim exec getuid-loop 3 > /dev/null
echo "== tracing_on after the first getuid:"
cat $T/tracing_on
echo "== trigger after it fired:"
cat $T/events/raw_syscalls/sys_enter/trigger
echo "== the last records:"
cat $T/trace | tail -n 10
echo '!traceoff' > $T/events/raw_syscalls/sys_enter/trigger
echo 0 > $T/events/raw_syscalls/enable
echo 0 > $T/events/sched/enable
echo 1 > $T/tracing_on
