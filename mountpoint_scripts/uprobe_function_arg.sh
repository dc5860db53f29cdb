#!/bin/sh
# A uprobe on a user program's function with its arguments, and a uretprobe with $retval
# (Documentation/trace/uprobetracer.rst): a static glibc program (kernel_model/user/static/
# progtest.c, built by `make -C kernel_model`) run in the emulated kernel; its write() (glibc's
# __libc_write) with the fd, the byte count and the text, and uname()'s return value.
# Run it: tracefs-sim run mountpoint_scripts/uprobe_function_arg.sh
. "$(dirname "$0")/uprobe_offset.sh"
# PROG: another copy of the program where the kernel sees it (its /tmp is its own)
PROG=${PROG:-$(cd "$(dirname "$0")/../kernel_model/build/user" && pwd)/progtest.elf}
cd /sys/kernel/tracing
echo 0 > tracing_on; echo > trace; echo 1 > tracing_on

echo "p:write_fd $PROG:$(file_offset "$PROG" __libc_write) fd=%di:s32 count=%dx:u64 text=+0(%si):string" >> uprobe_events
echo "r:uname_ret $PROG:$(file_offset "$PROG" __uname) ret=\$retval:s32" >> uprobe_events
echo "== uprobe_events reads back:"
sed "s|$PROG|PROG|" uprobe_events
echo "== the uretprobe's format:"
cat events/uprobes/uname_ret/format

echo 1 > events/uprobes/enable
tracefs-sim exec "$PROG" uname > /dev/null
echo 0 > events/uprobes/enable
echo "== the hits:"
grep -v '^#' trace
echo "== uprobe_profile:"
sed "s|$PROG|PROG|" uprobe_profile
echo > uprobe_events
