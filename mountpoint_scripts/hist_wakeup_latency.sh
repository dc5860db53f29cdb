#!/bin/bash
# Documentation/trace/histogram.rst, "inter-event" wakeup latency as written there, in the
# emulated kernel: sched_waking saves a timestamp per pid (ts0), sched_switch computes the
# latency with it ($ts0) and onmatch() writes the wakeup_latency synthetic event, whose own
# histogram counts pid and prio; a second trigger keeps the maximum per pid with onmax().
# Run it: tracefs-sim run mountpoint_scripts/hist_wakeup_latency.sh
T=/sys/kernel/tracing
cd $T
echo 'wakeup_latency u64 lat; pid_t pid; int prio' >> synthetic_events
echo 'hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger
echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)' >> events/sched/sched_switch/trigger
echo 'hist:keys=pid,prio:sort=pid,prio' >> events/synthetic/wakeup_latency/trigger
echo 1 > events/synthetic/wakeup_latency/enable
sleep 1
tracefs-sim exec sleep 0.2
echo "== triggers:"
cat events/sched/sched_waking/trigger events/sched/sched_switch/trigger events/synthetic/wakeup_latency/trigger
echo "== wakeup_latency hist:"
cat events/synthetic/wakeup_latency/hist
echo "== trace:"
grep -m 5 'wakeup_latency:' trace
echo "== busy:"
echo '!hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger || echo "sched_waking's hist is in use"
echo 1 > events/synthetic/wakeup_latency/enable
echo '!wakeup_latency' >> synthetic_events || echo "wakeup_latency is in use"
echo 0 > events/synthetic/wakeup_latency/enable
echo '!hist:keys=pid,prio:sort=pid,prio' >> events/synthetic/wakeup_latency/trigger
echo '!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,next_prio)' >> events/sched/sched_switch/trigger
echo "== onmax:"
echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid,prev_prio,prev_comm)' >> events/sched/sched_switch/trigger
tracefs-sim exec sleep 0.2
cat events/sched/sched_switch/hist
echo '!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid,prev_prio,prev_comm)' >> events/sched/sched_switch/trigger
echo '!hist:keys=pid:ts0=common_timestamp.usecs' >> events/sched/sched_waking/trigger
echo '!wakeup_latency' >> synthetic_events
echo "== done"
