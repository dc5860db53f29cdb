#!/bin/bash
# Documentation/trace/histogram.rst: read() calls counted by the process that made them
# (common_pid.execname), in the emulated kernel's syscalls:sys_enter_read tracepoint, while
# the session's own commands read; `pause` stops the counting, `clear` empties the map.
# Run it: tracefs-sim run mountpoint_scripts/hist_read_execname.sh
T=/sys/kernel/tracing
E=$T/events/syscalls/sys_enter_read
echo 'hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending' > $E/trigger
cat /etc/passwd > /dev/null
tracefs-sim exec cat /etc/passwd > /dev/null
echo "== hist:"
cat $E/hist
echo 'hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:pause' >> $E/trigger
echo "== trigger, paused:"
cat $E/trigger
echo 'hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:clear' >> $E/trigger
echo "== hist after clear:"
cat $E/hist
echo '!hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending' >> $E/trigger
