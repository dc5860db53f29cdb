#!/bin/bash
# A histogram on a kprobe event: the opens of the kernel (do_sys_openat2) counted by the
# directory fd they were given (AT_FDCWD is 4294967196 as the u64 the fetch arg stores) and by
# task. Triggers run on kprobe events as on tracepoints: the first one arms the probe in soft
# mode (enable reads 0*), and the emulated kernel's probe handler updates the map at each hit.
# Run it: tracefs-sim run mountpoint_scripts/kprobe_hist.sh
cd /sys/kernel/tracing
echo 'p:myopen do_sys_openat2 dfd=%di' >> kprobe_events
echo 'hist:keys=dfd' > events/kprobes/myopen/trigger      # (O_TRUNC: the hist triggers go, as 6.1)
echo 'hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending' >> events/kprobes/myopen/trigger
echo "== trigger:"
cat events/kprobes/myopen/trigger
echo "== enable:"
cat events/kprobes/myopen/enable
for i in 1 2 3; do tracefs-sim exec cat /etc/hostname > /dev/null; done
echo "== hist:"
cat events/kprobes/myopen/hist
echo '!hist:keys=dfd' >> events/kprobes/myopen/trigger
echo '!hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending' >> events/kprobes/myopen/trigger
echo '-:myopen' >> kprobe_events
