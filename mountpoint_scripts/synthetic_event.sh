#!/bin/bash
# A synthetic event, as Documentation/trace/histogram.rst defines the wakeup latency one:
# its fields, its format under events/synthetic/, the same event through dynamic_events, a
# malformed definition and its error_log entry, and its removal.
# Run it: tracefs-sim run mountpoint_scripts/synthetic_event.sh
cd /sys/kernel/tracing
echo 'wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]' >> synthetic_events
cat synthetic_events                        # wakeup_latency	u64 lat; pid_t pid; int prio; char[16] comm
cat events/synthetic/wakeup_latency/format
cat dynamic_events                          # s:synthetic/wakeup_latency	u64 lat; ...
echo 'bad_one u64 lat; char name[999]' >> synthetic_events
cat error_log                               # Invalid array specification, the caret under name[999]
echo '!wakeup_latency' >> synthetic_events
cat synthetic_events
