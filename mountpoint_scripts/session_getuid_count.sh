#!/bin/bash
# sys_enter_getuid while the session's shell runs `id -ru` (the real uid: getuid()) ten times:
# each id is a task of the emulated kernel, and each getuid() it makes is one record.
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_getuid_count.sh
cd /sys/kernel/tracing
echo > trace
echo 1 > events/syscalls/sys_enter_getuid/enable
for i in $(seq 10); do id -ru > /dev/null; done
echo 0 > events/syscalls/sys_enter_getuid/enable
echo "== getuid() calls of id:"
grep ' id-' trace | grep -c sys_getuid
echo "== the ids that made them:"
grep ' id-' trace | grep sys_getuid | awk '{print $1}' | sort -u | wc -l
