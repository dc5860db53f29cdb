#!/bin/bash
# What a trace event records (Documentation/trace/events.rst, "Event formats"): every event
# has a format file describing its binary record, which tools like trace-cmd and perf parse.
# Run it: tracefs-sim run mountpoint_scripts/event_formats.sh
set -e
cd /sys/kernel/tracing

echo "== event systems:"
ls events

echo "== the scheduler's events:"
ls events/sched

echo "== a context switch record:"
cat events/sched/sched_switch/format

echo "== a system call entry record:"
cat events/syscalls/sys_enter_getuid/format

echo "== the ring buffer page header:"
cat events/header_page

echo "== now make the kernel do some getuid() calls:"
tracefs-sim exec getuid-loop 3
