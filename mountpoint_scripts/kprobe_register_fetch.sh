#!/bin/bash
# A register fetch, as `perf probe` writes a probe without debuginfo: %di is do_sys_open's
# first argument (dfd) by the x86-64 calling convention.
# Run it: tracefs-sim run mountpoint_scripts/kprobe_register_fetch.sh
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo 'p:myprobe do_sys_open %di' > kprobe_events
echo "== kprobe_events (an unnamed argument is called argN):"
cat kprobe_events
echo 1 > events/kprobes/myprobe/enable
tracefs-sim exec cat /etc/passwd > /dev/null
echo "== do_sys_open's dfd (AT_FDCWD is -100: 0xffffff9c in the low 32 bits):"
grep -v '^#' trace | grep ' myprobe: '
echo 0 > events/kprobes/myprobe/enable
echo > kprobe_events
