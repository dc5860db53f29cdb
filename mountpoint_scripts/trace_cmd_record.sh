#!/bin/bash
# What `trace-cmd record` + `extract` do, from bash alone: reset, start events, run a command,
# stop, show the text, then extract each CPU's buffer as binary ring-buffer pages from
# per_cpu/cpuN/trace_pipe_raw (non-blocking 4096-byte reads, as trace-cmd's flush does).
# Run it: tracefs-sim run mountpoint_scripts/trace_cmd_record.sh [EVENT...]
#   (default events: sched:sched_switch syscalls:sys_enter_getuid; the pages go to $OUT or a
#   new temporary directory)
T=/sys/kernel/tracing
OUT=${OUT:-$(mktemp -d)}
events=("$@")
[ ${#events[@]} -gt 0 ] || events=(sched:sched_switch syscalls:sys_enter_getuid)

# reset: tracing off, no events, empty buffers
echo 0 > $T/tracing_on
echo > $T/set_event
echo > $T/trace
# start
for event in "${events[@]}"; do
    echo "$event" >> $T/set_event || exit 1
done
echo 1 > $T/tracing_on
tracefs-sim exec getuid-loop 10 > /dev/null
# stop
echo 0 > $T/tracing_on

echo "== show"
grep -v '^#' $T/trace

echo "== extract to $OUT"
for dir in $T/per_cpu/cpu*; do
    cpu=${dir##*/}
    # dd ends on the first EAGAIN (buffer empty); the pages read before it are kept.
    dd if=$dir/trace_pipe_raw of=$OUT/trace.dat.$cpu bs=4096 iflag=nonblock status=none 2>/dev/null
    size=$(stat -c %s $OUT/trace.dat.$cpu)
    data=0
    for ((off = 0; off < size; off += 4096)); do
        # struct buffer_data_page: u64 time_stamp; local_t commit (flags in its top bits)
        commit=$(od -An -t d8 -j $((off + 8)) -N 8 $OUT/trace.dat.$cpu)
        data=$((data + (commit & 0x3fffffff)))
    done
    echo "$cpu: $((size / 4096)) pages, $data bytes of events," \
         "$(grep '^read events:' $dir/stats | cut -d' ' -f3) events read"
done

echo "== left in the buffers"
echo "$(grep -vc '^#' $T/trace)"   # the count alone: grep's status 1 for none is no failure
