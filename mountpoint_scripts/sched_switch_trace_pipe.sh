#!/bin/bash
# The classic first event (Documentation/trace/events.rst, "Via the 'enable' toggle"): enable
# sched_switch in its own directory, then stream the buffer with a consuming read.
# trace_pipe blocks until data comes; interactively Ctrl-C ends it, here `timeout` does.
# Run it: tracefs-sim run mountpoint_scripts/sched_switch_trace_pipe.sh
cd /sys/kernel/debug/tracing/events/sched/sched_switch
echo 1 > enable
echo "== enabled: $(cat enable); set_event now lists:"
cat /sys/kernel/debug/tracing/set_event

# (the read first waits for the emulated kernel to have run this session's own syscalls so far:
# on a loaded machine that alone can take a second)
echo "== the scheduler switching tasks, as it happens (the first 20):"
timeout 10 cat /sys/kernel/debug/tracing/trace_pipe | head -20

echo 0 > enable
echo "== disabled: $(cat enable)"
