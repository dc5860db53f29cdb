#!/bin/bash
# A kprobe on do_sys_open that records the name of every file opened
# (Documentation/trace/kprobetrace.rst): the kernel's own example, as written.
# Run it: tracefs-sim run mountpoint_scripts/kprobe_do_sys_open.sh
echo 'p:myprobe do_sys_open filename=+0($arg2):ustring' > /sys/kernel/debug/tracing/kprobe_events
echo 1 > /sys/kernel/debug/tracing/events/kprobes/myprobe/enable
tracefs-sim exec cat /etc/passwd > /dev/null
cat /sys/kernel/debug/tracing/trace      # myprobe: (do_sys_open+0x0/0x...) filename="/etc/passwd"
echo 0 > /sys/kernel/debug/tracing/events/kprobes/myprobe/enable
echo '-:myprobe' >> /sys/kernel/debug/tracing/kprobe_events
echo 'p:yanfei schedule' >> /sys/kernel/tracing/kprobe_events; ls /sys/kernel/tracing/events/kprobes/yanfei
