#!/bin/sh
# opensnoop's way (perf-tools' and BCC's opensnoop): a kprobe on do_sys_openat2 with its
# file name and open flags, while Debian's busybox-static `find` walks /etc in the emulated
# kernel (its own program, not the session's): each directory find descends into is on the trace
# with find's pid, in the order find opened them.
# Run it: tracefs-sim run mountpoint_scripts/kprobe_opensnoop_busybox.sh
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo 'p:opensnoop do_sys_openat2 filename=+0(%si):ustring flags=+0(%dx):x64' > kprobe_events
echo 1 > events/kprobes/opensnoop/enable
tracefs-sim exec /bin/busybox find /etc/apt /etc/ssh -type d > /tmp/opensnoop-find.out
echo 0 > events/kprobes/opensnoop/enable
echo "== find printed:"
cat /tmp/opensnoop-find.out
echo "== the opens of find (busybox):"
grep ' busybox-' trace | sed 's/^.*opensnoop: //'
echo > kprobe_events
rm -f /tmp/opensnoop-find.out
