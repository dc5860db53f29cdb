#!/bin/bash
# Documentation/trace/histogram.rst's wakeup latency with the woken task's comm: a string
# variable (wcomm=comm, saved per pid on sched_waking with the timestamp) passed to a
# `char comm[16]` field of the synthetic event, both of sched_waking's variables named fully
# qualified (SYSTEM.EVENT.$var) from sched_switch, as the document's onmatch() section allows.
# Run it: tracefs-sim run mountpoint_scripts/hist_wakeup_latency_comm.sh
T=/sys/kernel/tracing
cd $T
echo 'wakeup_latency u64 lat; pid_t pid; char comm[16]' >> synthetic_events
echo 'hist:keys=pid:ts0=common_timestamp.usecs,wcomm=comm' >> events/sched/sched_waking/trigger
echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-sched.sched_waking.$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,sched.sched_waking.$wcomm)' >> events/sched/sched_switch/trigger
echo 'hist:keys=pid,comm:sort=pid' >> events/synthetic/wakeup_latency/trigger
echo 1 > events/synthetic/wakeup_latency/enable
tracefs-sim exec sleep 0.2
echo "== triggers:"
cat events/sched/sched_waking/trigger events/sched/sched_switch/trigger
echo "== wakeup_latency hist:"
cat events/synthetic/wakeup_latency/hist
echo "== trace:"
grep 'wakeup_latency:' trace
echo 0 > events/synthetic/wakeup_latency/enable
echo '!hist:keys=pid,comm:sort=pid' >> events/synthetic/wakeup_latency/trigger
echo '!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-sched.sched_waking.$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,sched.sched_waking.$wcomm)' >> events/sched/sched_switch/trigger
echo '!hist:keys=pid:ts0=common_timestamp.usecs,wcomm=comm' >> events/sched/sched_waking/trigger
echo '!wakeup_latency' >> synthetic_events
echo "== done"
