#!/bin/sh
# A uprobe and sched_process_fork: the child of a fork inherits the probe (its pages are the
# parent's, int3 included), so the write() it makes after the fork is recorded under its own
# pid, next to the fork event that made it.
# Run it: tracefs-sim run mountpoint_scripts/uprobe_fork_inherit.sh
. "$(dirname "$0")/uprobe_offset.sh"
# PROG: another copy of the program where the kernel sees it (its /tmp is its own)
PROG=${PROG:-$(cd "$(dirname "$0")/../kernel_model/build/user" && pwd)/progtest.elf}
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo "p:write_fd $PROG:$(file_offset "$PROG" __libc_write) fd=%di:s32 count=%dx:u64" >> uprobe_events
echo 1 > events/uprobes/write_fd/enable
echo 1 > events/sched/sched_process_fork/enable
tracefs-sim exec "$PROG" fork
echo 0 > events/sched/sched_process_fork/enable
echo 0 > events/uprobes/write_fd/enable
echo "== the fork and the writes on each side:"
grep -v '^#' trace | grep -E 'progtest|write_fd'
echo > uprobe_events
