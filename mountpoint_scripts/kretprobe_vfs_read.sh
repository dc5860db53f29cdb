#!/bin/bash
# A kretprobe (Documentation/trace/kprobetrace.rst): vfs_read's return value, recorded where
# it returns to, and kprobe_profile counting the hits and misses of each probe.
# Run it: tracefs-sim run mountpoint_scripts/kretprobe_vfs_read.sh
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo 'r:myret vfs_read $retval' >> kprobe_events
echo "== kprobe_events reads back in the kernel's normal form:"
cat kprobe_events
echo "== the event's format:"
cat events/kprobes/myret/format

echo 1 > events/kprobes/myret/enable
tracefs-sim exec cat /etc/passwd > /dev/null
echo "== vfs_read returning (bytes read, 0 at the end of the file):"
grep -v '^#' trace | grep ' myret: '
echo 0 > events/kprobes/myret/enable
echo "== kprobe_profile (event, hits, misses):"
cat kprobe_profile

echo '-:myret' >> kprobe_events
echo "== removed:"
cat kprobe_events
