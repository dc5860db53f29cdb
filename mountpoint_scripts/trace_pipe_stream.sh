#!/bin/bash
# Streaming many events (sched and raw_syscalls) through trace_pipe while a program runs,
# as `trace-cmd stream` or `cat trace_pipe` users do; the consuming read empties the buffer.
# Run it: tracefs-sim run mountpoint_scripts/trace_pipe_stream.sh
cd /sys/kernel/tracing
echo > trace
echo 'sched:*' > set_event
echo 'raw_syscalls:*' >> set_event
echo "== events enabled:"
cat set_event

# streams while the program runs; having read something, it ends once tracing is off and the
# buffer empty (6.1's trace_pipe); the timeout only guards against a reader that never ends
timeout 60 cat trace_pipe > /tmp/trace_pipe_stream.$$ &
tracefs-sim exec getuid-loop 200 > /dev/null
echo 0 > tracing_on    # nothing more is recorded: the reader drains the rest, then ends
wait
echo > set_event      # events off before tracing is back on: nothing new is recorded
echo 1 > tracing_on

echo "== lines streamed, by event:"
sed -n 's/.*: \([a-z_]*\): .*/\1/p' /tmp/trace_pipe_stream.$$ | sort | uniq -c | sort -rn
echo "== a few of them:"
grep -m3 sys_enter /tmp/trace_pipe_stream.$$
rm -f /tmp/trace_pipe_stream.$$

echo "== what the buffer kept after the consuming read (header only):"
cat per_cpu/cpu0/stats
