#!/bin/bash
# The first look at tracefs, as the kernel docs start (Documentation/trace/ftrace.rst):
# what is there, what is on, and a program run in the emulated kernel.
# Run it: tracefs-sim run mountpoint_scripts/hello.sh
set -e
cd /sys/kernel/tracing

echo "== tracefs is mounted here:"
grep -w tracefs /proc/mounts

echo "== tracers this kernel has, and the current one:"
cat available_tracers
cat current_tracer

echo "== is tracing on?"
cat tracing_on

echo "== the clocks (the current one in brackets):"
cat trace_clock

echo "== per-CPU buffers, one directory per CPU:"
ls per_cpu
cat buffer_size_kb

echo "== the (empty) trace buffer:"
cat trace

echo "== a program in the emulated kernel reads its /etc/passwd:"
tracefs-sim exec cat /etc/passwd
