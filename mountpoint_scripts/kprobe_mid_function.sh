#!/bin/bash
# A kprobe in the middle of a function (SYM+offs): it must sit on an instruction boundary.
# The offset is read from the live disassembly, so it stays right when the kernel changes:
# the first instruction after vfs_read's entry ftrace site that comes before any branch,
# so that every call passes it.
# Run it: tracefs-sim run mountpoint_scripts/kprobe_mid_function.sh
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

listing=$(tracefs-sim disasm vfs_read) || exit 1
echo "== vfs_read, as the emulated kernel runs it:"
echo "$listing" | head -12
# Rows are "ADDR:<tab>BYTES<tab>INSTRUCTION" after a "START <vfs_read>:" header. Take the
# second or third instruction (the first is the ftrace site), whichever is last before a
# branch: every call passes it.
start=$(echo "$listing" | head -1 | cut -d' ' -f1)
read -r addr size < <(echo "$listing" | awk -F'\t' '
    NR == 1 || $3 == "" { next }                         # header, continuation rows
    { n++ }
    n == 1 { next }
    $3 ~ /^(j|call|ret|int3)/ { exit }                   # later instructions may be skipped
    { sub(/:$/, "", $1); addr = $1; size = split($2, b, " ") }
    n == 3 { exit }
    END { if (addr) print addr, size }')
if [ -z "$addr" ]; then
    echo "no instruction before vfs_read's first branch" >&2
    exit 1
fi
offset=$((0x$addr - 0x$start))
echo "== a probe at vfs_read+$offset (an instruction boundary):"
echo "p:midprobe vfs_read+$offset count=%dx:u64" > kprobe_events
cat kprobe_events
if [ "$size" -gt 1 ]; then
    echo "== one byte further is inside that $size-byte instruction; Linux refuses it:"
    echo "p:bad vfs_read+$((offset + 1))" >> kprobe_events
    tail -3 error_log
fi

echo 1 > events/kprobes/midprobe/enable
tracefs-sim exec cat /etc/passwd > /dev/null
echo "== hits:"
grep -v '^#' trace | grep ' midprobe: ' | head -5
echo 0 > events/kprobes/midprobe/enable
echo "== kprobe_profile (event, hits, misses):"
cat kprobe_profile
echo > kprobe_events
