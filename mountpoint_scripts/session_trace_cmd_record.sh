#!/bin/bash
# trace-cmd records the scheduler and syscall events while it runs `ls /` itself: ls is a
# task of the emulated kernel (README: "Your own processes are the emulated kernel's tasks"),
# so its calls are in the report. (-N: without libtraceevent's plugins, whose sched_switch
# handler names a pid by the first comm it prints, the one before ls's exec.)
# Run it: tracefs-sim run --workload none mountpoint_scripts/session_trace_cmd_record.sh
cd "$(mktemp -d)"
trace-cmd record -e sched -e syscalls ls / > /dev/null 2> record.log || cat record.log
echo "== ls in the report:"
trace-cmd report -N 2>/dev/null | grep -E ' ls-[0-9]+ ' | grep -E -m 3 'sched_process_exec|sys_enter_getdents64|sys_enter_exit_group'
