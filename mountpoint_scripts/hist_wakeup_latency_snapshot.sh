#!/bin/bash
# Documentation/trace/histogram.rst, "onmax(var).snapshot()", as written there with `sleep`
# in place of cyclictest: the scheduler events enabled, sched_waking saves a timestamp per pid,
# sched_switch computes the wakeup latency, keeps each pid's maximum with what it saved, and
# takes a snapshot of the trace buffer whenever the latency passes the global maximum; the
# hist file then says which value and key took the last one, and the snapshot ends with the
# sched_switch that took it.  Run it: tracefs-sim run mountpoint_scripts/hist_wakeup_latency_snapshot.sh
T=/sys/kernel/tracing
cd $T
echo 1 > events/sched/enable
echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="sleep"' >> events/sched/sched_waking/trigger
echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_prio,next_comm,prev_pid,prev_prio,prev_comm):onmax($wakeup_lat).snapshot() if next_comm=="sleep"' >> events/sched/sched_switch/trigger
for i in 1 2 3; do tracefs-sim exec sleep 0.1; done
echo "== hist:"
cat events/sched/sched_switch/hist
echo "== snapshot:"
grep -v '^#' snapshot | tail -3
echo "== snapshot file:"
echo 1 > snapshot || echo "the snapshot is the hist trigger's"
echo 0 > events/sched/enable
echo '!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_prio,next_comm,prev_pid,prev_prio,prev_comm):onmax($wakeup_lat).snapshot() if next_comm=="sleep"' >> events/sched/sched_switch/trigger
echo '!hist:keys=pid:ts0=common_timestamp.usecs if comm=="sleep"' >> events/sched/sched_waking/trigger
echo 1 > snapshot && echo "free again"
echo "== done"
