#!/bin/bash
# The stacktrace and userstacktrace options (Documentation/trace/ftrace.rst, trace_options):
# after each record of an event, the kernel stack of its writer and the user stack of the task
# that made it, taken in the emulated kernel as 6.1's trace_buffer_unlock_commit_regs() takes
# them; sym-userobj prints a user address as the file mapped there and the offset in its mapping,
# looked up when the trace is read (so only while the task lives).
# Run it: tracefs-sim run mountpoint_scripts/stack_options.sh
T=/sys/kernel/tracing
echo > $T/trace
echo 1 > $T/options/stacktrace
echo userstacktrace > $T/trace_options
echo sym-userobj > $T/trace_options
echo 'comm == "sleep"' > $T/events/syscalls/sys_enter_nanosleep/filter   # not the workload's (diskwriter)
echo 1 > $T/events/syscalls/sys_enter_nanosleep/enable
tracefs-sim exec sleep 2 &          # an emulated program: its user memory is the kernel's to read
for i in $(seq 200); do
	grep -q '<user stack trace>' $T/trace && break
done
echo "== the emulated sleep's nanosleep, with its kernel and user stacks:"
grep -v '^#' $T/trace | head -n 9
wait
echo 0 > $T/events/syscalls/sys_enter_nanosleep/enable
echo 0 > $T/events/syscalls/sys_enter_nanosleep/filter
echo nosym-userobj > $T/trace_options
echo nouserstacktrace > $T/trace_options
echo 0 > $T/options/stacktrace
