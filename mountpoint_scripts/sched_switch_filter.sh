#!/bin/bash
# Event filters (Documentation/trace/events.rst, "Event filtering"): only switches away from
# the task named in the filter are kept; the rest never reach the buffer.
# Run it: tracefs-sim run mountpoint_scripts/sched_switch_filter.sh
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo "== a filter on a pid that does not exist keeps nothing:"
echo 'prev_pid == 1234' > events/sched/sched_switch/filter
cat events/sched/sched_switch/filter
echo 1 > events/sched/sched_switch/enable
tracefs-sim exec sleep 0.1
echo 0 > events/sched/sched_switch/enable
grep entries-in-buffer trace

echo "== a filter on the comm of a sleeping program:"
echo > trace
echo 'prev_comm == "sleep"' > events/sched/sched_switch/filter
cat events/sched/sched_switch/filter
echo 1 > events/sched/sched_switch/enable
tracefs-sim exec sleep 0.2
echo 0 > events/sched/sched_switch/enable
cat trace

echo "== a bad filter is refused, and the filter file says why:"
echo 'prev_pid ==' > events/sched/sched_switch/filter
cat events/sched/sched_switch/filter
cat error_log

echo "== 0 clears it:"
echo 0 > events/sched/sched_switch/filter
cat events/sched/sched_switch/filter
