#!/bin/bash
# Documentation/trace/kprobetrace.rst's probe on the open path, catching the file the
# session's own `cat` opens: the path string is in cat's task's user memory in the emulated
# kernel, where +0($arg2):ustring reads it.
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_kprobe_open.sh
cd /sys/kernel/tracing
echo 'p:myprobe do_sys_openat2 filename=+0($arg2):ustring' > kprobe_events
echo 1 > events/kprobes/myprobe/enable
cat /etc/hostname > /dev/null
echo 0 > events/kprobes/myprobe/enable
echo "== what cat opened:"
grep ' cat-' trace | grep myprobe
echo '-:myprobe' >> kprobe_events
