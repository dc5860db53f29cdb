#!/bin/bash
# An event probe: a new event on sched:sched_switch that keeps only the two comms, as strings
# (6.1's `e:` command in dynamic_events). It fires where sched_switch fires, even with
# sched_switch itself off (its enable file reads 0*: soft mode, for the eprobe).
# Run it: tracefs-sim run mountpoint_scripts/eprobe_sched_switch.sh
cd /sys/kernel/tracing
echo 'e:comms sched.sched_switch prev=$prev_comm:string next=$next_comm:string' >> dynamic_events
cat dynamic_events                          # e:eprobes/comms sched.sched_switch prev=...
cat events/eprobes/comms/format
echo 1 > events/eprobes/comms/enable
cat events/sched/sched_switch/enable       # 0*
tracefs-sim exec sleep 0.1
echo 0 > events/eprobes/comms/enable
grep -m 5 'comms:' trace                    # comms: (sched.sched_switch) prev="sleep" next="swapper/0"
echo '-:comms' >> dynamic_events
cat dynamic_events
