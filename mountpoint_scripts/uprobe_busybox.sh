#!/bin/sh
# A uprobe on busybox (Debian's busybox-static, stripped: probed at its entry point): each
# program the emulated kernel execs from /bin/busybox shows its argc, argv[0] and argv[1]
# on the user stack, and the first word of its text (@+0x1000: the file offset, where ever it is
# mapped; a page not yet mapped in is faulted in, as Linux's copy_from_user() does), and
# uprobe_profile counts them.
# Run it: tracefs-sim run mountpoint_scripts/uprobe_busybox.sh
. "$(dirname "$0")/uprobe_offset.sh"
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo "p:bb_start /bin/busybox:$(entry_offset /bin/busybox) argc=+0(%sp):u64 argv0=+0(+8(%sp)):string argv1=+0(+16(%sp)):string text=@+0x1000:x32" > uprobe_events
echo 1 > events/uprobes/bb_start/enable
tracefs-sim exec /bin/busybox sh -c 'ls / | wc -l' > /dev/null
tracefs-sim exec /bin/busybox echo hello
echo 0 > events/uprobes/bb_start/enable
echo "== busybox starting:"
grep -v '^#' trace
echo "== uprobe_profile:"
cat uprobe_profile
echo > uprobe_events
