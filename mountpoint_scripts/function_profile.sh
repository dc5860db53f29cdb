#!/bin/bash
# The function profiler: how often each function ran and how long it took (the time includes
# the functions it called), per cpu, counted in the emulated kernel while a program runs.
# set_ftrace_filter picks the functions (all of them when it is empty).
# Run it: tracefs-sim run mountpoint_scripts/function_profile.sh
cd /sys/kernel/tracing
echo 'vfs_*' > set_ftrace_filter
echo 1 > function_profile_enabled            # starts from zero
tracefs-sim exec dd if=/dev/zero of=/dev/null bs=4k count=100 > /dev/null 2>&1
echo 0 > function_profile_enabled            # stops; what it found stays
for f in trace_stat/function*; do
    echo "== the vfs functions by time, ${f#trace_stat/}:"
    cat "$f"                                  # sorted by time, longest first
done
echo > set_ftrace_filter
