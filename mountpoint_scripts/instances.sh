#!/bin/bash
# Trace instances (Documentation/trace/ftrace.rst, "Instances"): a second buffer with its own
# events, filters and options, independent of the top level.
# Run it: tracefs-sim run mountpoint_scripts/instances.sh
cd /sys/kernel/tracing
mkdir instances/foo
echo "== instances/foo has its own control files:"
ls instances/foo

echo 1 > instances/foo/events/syscalls/sys_enter_getuid/enable
tracefs-sim exec getuid-loop 5 > /dev/null
echo 0 > instances/foo/events/syscalls/sys_enter_getuid/enable

echo "== recorded in foo:"
grep getuid-loop instances/foo/trace | grep -c sys_getuid
echo "== and not at the top level:"
grep -c sys_getuid trace

echo "== an instance that exists cannot be made again:"
mkdir instances/foo
rmdir instances/foo
echo "== removed; instances now:"
ls instances
