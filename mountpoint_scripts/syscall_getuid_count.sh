#!/bin/bash
# Counting system calls with a syscalls event: every getuid() of the program is one record.
# The shell is a task of the kernel too: bash calls getuid() itself while it looks for the
# command in $PATH (its permission checks), so the count is of the program's lines.
# Run it: tracefs-sim run mountpoint_scripts/syscall_getuid_count.sh
echo 1 > /sys/kernel/tracing/events/syscalls/sys_enter_getuid/enable
tracefs-sim exec getuid-loop 36 > /dev/null
echo 0 > /sys/kernel/tracing/events/syscalls/sys_enter_getuid/enable

echo "== getuid() calls recorded:"
grep getuid-loop /sys/kernel/tracing/trace | grep -c sys_getuid
echo "== the first of them:"
grep getuid-loop /sys/kernel/tracing/trace | grep -m1 sys_getuid
