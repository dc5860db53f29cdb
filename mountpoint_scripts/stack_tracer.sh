#!/bin/bash
# The stack tracer: the deepest kernel stack seen while a program runs, each frame with the
# depth of its return address and the stack it takes (kernel.stack_tracer_enabled, the emulated
# kernel's in a session; stack_trace_filter limits the functions where the stack is measured).
# Run it: tracefs-sim run mountpoint_scripts/stack_tracer.sh
cd /sys/kernel/tracing
echo 0 > stack_max_size                     # start over
echo 1 > /proc/sys/kernel/stack_tracer_enabled
tracefs-sim exec dd if=/dev/zero of=/dev/null bs=4k count=100 > /dev/null 2>&1
echo 0 > /proc/sys/kernel/stack_tracer_enabled
cat stack_max_size                          # the deepest stack, in bytes
cat stack_trace                             # its frames, the deepest first
