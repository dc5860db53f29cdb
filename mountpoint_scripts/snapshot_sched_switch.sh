#!/bin/bash
# A snapshot trigger (Documentation/trace/events.rst, "snapshot"): the buffer is swapped into
# the snapshot when a task switches out to sleep, so `snapshot` keeps what led to that switch
# while `trace` goes on recording. The docs' example waits for an uninterruptible sleep
# (prev_state & 2, D), which this kernel's tasks enter only on a contended mutex or semaphore;
# this waits for an interruptible one (prev_state & 1, S) of the program it runs. The swap is
# asked for by the trigger in the emulated kernel's sched_switch tracepoint, at that record,
# which ends the snapshot as on 6.1 (its filter ran on the record already in the buffer).
# Run it: tracefs-sim run mountpoint_scripts/snapshot_sched_switch.sh
T=/sys/kernel/tracing
echo > $T/trace
echo 'snapshot:1 if prev_state & 1 && prev_comm == "sleep"' > $T/events/sched/sched_switch/trigger
echo 1 > $T/events/sched/enable
echo "== snapshot before the trigger fired:"
head -n 4 $T/snapshot
tracefs-sim exec sleep 1 > /dev/null
echo 0 > $T/events/sched/enable
echo "== trigger:"
cat $T/events/sched/sched_switch/trigger
echo "== the snapshot ends with sleep's switch; the trace goes on after it:"
grep -c ': sched_' $T/snapshot
grep ': sched_switch: ' $T/snapshot | tail -n 1
echo '!snapshot' > $T/events/sched/sched_switch/trigger
echo 0 > $T/snapshot
