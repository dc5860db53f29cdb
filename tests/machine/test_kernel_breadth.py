"""More of Linux 6.1's functions, each called by its 6.1 caller in the paths the emulated kernel
runs (issue 15): the function tracer sees every (function, parent) pair below while the programs
run.  Pairs follow 6.1's source (the model keeps frame pointers and no sibling calls, so a
function 6.1 tail-calls is seen under its caller, as a frame-pointer build of 6.1 shows it)."""
import re

import pytest

from test_kernel_paths import run, traced_calls
from test_progs import BUSYBOX, _static_busybox, build_static  # noqa: F401 (a fixture)
from guest_events import number_events as event_ids


@pytest.fixture
def machine(make_machine):
    return make_machine(traced=True, cpus=2, seed=3)


# kernel/time/posix-timers.c, posix-cpu-timers.c, time.c, timekeeping.c; kernel/sched/cputime.c;
# kernel/time/tick-sched.c; fs/select.c, fs/inode.c
TIME_CALLS = {
    ("posix_get_realtime_timespec", "__x64_sys_clock_gettime"),
    ("ktime_get_real_ts64", "posix_get_realtime_timespec"),
    ("posix_get_monotonic_timespec", "__x64_sys_clock_gettime"),
    ("ktime_get_ts64", "posix_get_monotonic_timespec"),
    ("posix_get_monotonic_raw", "__x64_sys_clock_gettime"),
    ("ktime_get_raw_ts64", "posix_get_monotonic_raw"),
    ("posix_get_realtime_coarse", "__x64_sys_clock_gettime"),
    ("ktime_get_coarse_real_ts64", "posix_get_realtime_coarse"),
    ("posix_get_monotonic_coarse", "__x64_sys_clock_gettime"),
    ("ktime_get_coarse_ts64", "posix_get_monotonic_coarse"),
    ("posix_get_boottime_timespec", "__x64_sys_clock_gettime"),
    ("posix_get_tai_timespec", "__x64_sys_clock_gettime"),
    ("ktime_get_with_offset", "posix_get_boottime_timespec"),
    ("ktime_get_with_offset", "posix_get_tai_timespec"),
    ("process_cpu_clock_get", "__x64_sys_clock_gettime"),
    ("thread_cpu_clock_get", "__x64_sys_clock_gettime"),
    ("posix_cpu_clock_get", "process_cpu_clock_get"),
    ("posix_cpu_clock_get", "thread_cpu_clock_get"),
    ("posix_cpu_clock_get", "__x64_sys_clock_gettime"),      # a clock id naming a pid
    ("cpu_clock_sample", "posix_cpu_clock_get"),
    ("cpu_clock_sample_group", "posix_cpu_clock_get"),
    ("thread_group_cputime", "cpu_clock_sample_group"),
    ("task_cputime", "thread_group_cputime"),
    ("task_sched_runtime", "cpu_clock_sample"),
    ("ns_to_timespec64", "posix_cpu_clock_get"),
    ("put_timespec64", "__x64_sys_clock_gettime"),
    ("posix_get_hrtimer_res", "__x64_sys_clock_getres"),
    ("posix_get_coarse_res", "__x64_sys_clock_getres"),
    ("process_cpu_clock_getres", "__x64_sys_clock_getres"),
    ("thread_cpu_clock_getres", "__x64_sys_clock_getres"),
    ("posix_cpu_clock_getres", "process_cpu_clock_getres"),
    ("put_timespec64", "__x64_sys_clock_getres"),
    ("get_timespec64", "__x64_sys_clock_nanosleep"),
    ("common_nsleep", "__x64_sys_clock_nanosleep"),
    ("hrtimer_nanosleep", "common_nsleep"),
    ("get_timespec64", "__x64_sys_nanosleep"),
    ("ktime_get_real_ts64", "__x64_sys_gettimeofday"),
    ("ktime_get_real_seconds", "__x64_sys_time"),
    ("thread_group_cputime_adjusted", "do_sys_times"),
    ("thread_group_cputime", "thread_group_cputime_adjusted"),
    ("cputime_adjust", "thread_group_cputime_adjusted"),
    # the tick's accounting
    ("account_user_time", "account_process_tick"),
    ("account_system_time", "account_process_tick"),
    ("account_system_index_time", "account_system_time"),
    # a file's times
    ("ktime_get_coarse_real_ts64", "current_time"),
}
IDLE_CALLS = {
    ("tick_nohz_restart_sched_tick", "tick_nohz_idle_exit"),
    ("tick_nohz_account_idle_time", "tick_nohz_idle_exit"),
    ("account_idle_ticks", "tick_nohz_account_idle_time"),
    ("account_idle_time", "account_idle_ticks"),
    ("account_idle_time", "account_process_tick"),
}


def test_the_clocks_and_cpu_time_calls(machine):
    funcs = {f for pair in TIME_CALLS | IDLE_CALLS for f in pair}
    calls = traced_calls(machine, funcs, [
        (["progtest", "clocks"], None),
        (["progtest", "clock"], None),
        (["sleep", "1"], None),
        (["dd", "if=/dev/zero", "of=/tmp/t", "bs=4096", "count=4"], None),
        (["getuid-loop", "20000"], None),       # ticks in user and in system mode
    ])
    assert TIME_CALLS <= calls, TIME_CALLS - calls
    assert IDLE_CALLS <= calls, IDLE_CALLS - calls


def test_the_clocks_answer_as_6_1s(machine):
    out = run(machine, ["progtest", "clocks"]).decode()
    res = dict(re.findall(r"clock (\d+): gettime 0 res 0 (\d+)ns", out))
    # every clock reads; the hrtimer resolution is 1 ns, the coarse clocks' a tick (HZ 250),
    # the CPU clocks' CPUCLOCK_SCHED 1 ns
    assert res == {"0": "1", "1": "1", "2": "1", "3": "1", "4": "1", "5": "4000000",
                   "6": "4000000", "7": "1", "11": "1"}, out
    assert "pid clock: 0\n" in out
    assert "alarm clock: -22\n" in out            # no RTC: CLOCK_REALTIME_ALARM is EINVAL
    assert "time agrees with gettimeofday: yes\n" in out
    assert "abs sleep: 0\n" in out
    assert "thread sleep: -95\n" in out           # clock_thread has no nsleep: EOPNOTSUPP
    assert "times: ok\n" in out


def test_proc_stat_has_6_1s_cpu_lines(machine):
    run(machine, ["sleep", "1"])
    run(machine, ["getuid-loop", "20000"])
    out = run(machine, ["cat", "/proc/stat"]).decode().splitlines()
    cpus = [line.split() for line in out if line.startswith("cpu")]
    assert [c[0] for c in cpus] == ["cpu", "cpu0", "cpu1"], out
    assert all(len(c) == 11 for c in cpus)        # user nice system idle iowait irq softirq ...
    total = [int(v) for v in cpus[0][1:]]
    # (6.1 sums the cpus' nanoseconds, then converts: a unit more at most, per cpu)
    assert all(0 <= t - int(a) - int(b) <= 1 for t, a, b in zip(total, cpus[1][1:], cpus[2][1:])), cpus
    assert total[3] > 0                           # the idle cpus' time
    assert total[0] + total[2] > 0                # user and system


# (rt_sigreturn's SYSCALL_DEFINE0 entry is an alias of __do_sys_rt_sigreturn, not traced)
# kernel/signal.c, arch/x86/kernel/signal.c, arch/x86/kernel/fpu/{core,signal}.c,
# arch/x86/mm/fault.c (a frame-pointer build: no sibling calls)
SIGNAL_CALLS = {
    ("__kill_pgrp_info", "kill_something_info"),
    ("group_send_sig_info", "__kill_pgrp_info"),
    ("__lock_task_sighand", "do_send_sig_info"),
    ("send_sig", "pipe_write"),
    ("send_sig_info", "send_sig"),
    ("__set_current_blocked", "set_current_blocked"),
    ("__set_task_blocked", "__set_current_blocked"),
    ("next_signal", "dequeue_signal"),
    ("collect_signal", "dequeue_signal"),
    ("signal_setup_done", "arch_do_signal_or_restart"),  # handle_signal (inline)
    ("fpu__clear_user_states", "arch_do_signal_or_restart"),
    ("restore_sigcontext", "__do_sys_rt_sigreturn"),
    ("restore_altstack", "__do_sys_rt_sigreturn"),
    ("fpu__restore_sig", "restore_sigcontext"),
    ("__fpu_restore_sig", "fpu__restore_sig"),
    ("fpu_clone", "copy_thread"),
    ("force_sig_fault_to_task", "force_sig_fault"),
    ("force_sig_info", "force_sig_fault_to_task"),
    ("unhandled_signal", "__bad_area_nosemaphore"),     # show_signal_msg (inline)
    # a frame that cannot be written, a frame rt_sigreturn cannot read
    ("force_sigsegv", "signal_setup_done"),
    ("force_sig", "force_sigsegv"),               # SIGUSR1's frame: a SIGSEGV
    ("force_fatal_sig", "force_sigsegv"),         # SIGSEGV's frame: a fatal one
    ("signal_fault", "__do_sys_rt_sigreturn"),
    ("force_sig", "signal_fault"),
    ("force_sig_info", "force_sig"),
}
# the model's caller (6.1's is its get_sigframe.constprop.0.isra.0 clone)
SIGFRAME_CALLS = {
    ("fpu__alloc_mathframe", "setup_rt_frame"),
    ("copy_fpstate_to_sigframe", "setup_rt_frame"),
}
SIGSEGV_STATUS = 128 + 11


def test_signal_calls(machine):
    funcs = {f for f, _ in SIGNAL_CALLS | SIGFRAME_CALLS}
    calls = traced_calls(machine, funcs, [
        (["progtest", "sigmisc"], None),
        (["progtest", "segv"], None, SIGSEGV_STATUS),
        (["progtest", "badframe"], b"raising\n", SIGSEGV_STATUS),
        (["progtest", "badreturn"], b"returning\n", SIGSEGV_STATUS),
    ])
    assert SIGNAL_CALLS <= calls, SIGNAL_CALLS - calls
    assert SIGFRAME_CALLS <= calls, SIGFRAME_CALLS - calls


def test_signals_as_6_1_sends_them(machine):
    out = run(machine, ["progtest", "sigmisc"]).decode().splitlines()
    assert out == [
        "kill(0): 0, handler saw 10",                 # the caller's process group
        "kill(-pgrp): 0, handler saw 10",
        "kill(-99999): -1 No such process",
        "kill(zombie): 0, tgkill(zombie): 0",         # taken and ignored until it is reaped
        "kill(reaped): -1 No such process",
        "write to a pipe with no reader: -1 Broken pipe, handler saw 13",   # SIGPIPE, then EPIPE
        "handler on the alternate stack: 12 yes",
    ]
    # a handled SIGSEGV says nothing in the log; an unhandled one does
    run(machine, ["progtest", "segv"], None, SIGSEGV_STATUS)
    run(machine, ["progtest", "badreturn"], None, SIGSEGV_STATUS)
    log = machine.console_output().decode()
    assert re.search(r"progtest\[\d+\]: segfault at 10 ip \w+ sp \w+ error 6 in progtest\[", log), log
    assert re.search(r"progtest\[\d+\] bad frame in rt_sigreturn frame:ff8 ip:\w+ sp:1000 orax:f", log), log


# fs/namespace.c (mount write access), fs/inode.c (atime, the super block's list), fs/dcache.c,
# fs/file_table.c, fs/pipe.c, fs/namei.c
VFS_CALLS = {
    ("mnt_want_write", "filename_create"),
    ("mnt_drop_write", "done_path_create"),
    ("mnt_want_write", "do_rmdir"),
    ("mnt_want_write", "do_unlinkat"),
    ("mnt_drop_write", "do_unlinkat"),
    ("mnt_want_write", "do_renameat2"),
    ("mnt_want_write", "chmod_common"),
    ("mnt_want_write", "vfs_utimes"),
    ("__mnt_want_write", "mnt_want_write"),
    ("__mnt_drop_write", "mnt_drop_write"),
    ("__mnt_want_write", "do_dentry_open"),     # an open for writing holds it
    ("__mnt_drop_write", "__fput"),             # until its last fput
    ("__mnt_want_write_file", "file_update_time"),
    ("__mnt_drop_write_file", "file_update_time"),
    # relatime: the first read after a change
    ("touch_atime", "shmem_file_read_iter"),
    ("touch_atime", "filemap_read"),
    ("touch_atime", "iterate_dir"),
    ("touch_atime", "pipe_read"),
    ("touch_atime", "do_readlinkat"),
    ("touch_atime", "step_into"),               # a symlink followed (pick_link, inline)
    ("atime_needs_update", "touch_atime"),
    ("inode_update_time", "touch_atime"),
    # the dcache
    ("__d_alloc", "d_alloc"),
    ("d_set_d_op", "__d_alloc"),
    ("alloc_file_clone", "create_pipe_files"),
    ("__d_instantiate", "d_instantiate"),
    ("d_same_name", "__d_lookup"),
    ("___d_drop", "__d_drop"),
    ("dentry_unlink_inode", "__dentry_kill"),
    ("dentry_unlink_inode", "d_delete"),
    ("__d_move", "d_move"),
    ("inode_sb_list_add", "new_inode"),
    ("lookup_dcache", "lookup_one_qstr_excl"),
    ("__check_sticky", "may_delete"),           # /tmp is sticky
}
# the model's out-of-line open_last_lookups (6.1 inlines it into path_openat)
VFS_MODEL_CALLS = {("mnt_want_write", "open_last_lookups")}


def test_vfs_write_access_atime_and_dcache_calls(machine):
    funcs = {f for f, _ in VFS_CALLS | VFS_MODEL_CALLS}
    fsop = [(["fsop", family, f"/tmp/fsop-b{family}"], None) for family in ("open", "dir", "link", "fd", "pipe", "rw", "stat")]
    calls = traced_calls(machine, funcs, fsop + [
        (["polltest", "utimes"], None),
        (["diskwriter", "/mnt/a", "4096", "none"], b"/mnt/a: 4096 bytes, none = 0\n"),
        (["sleep", "0.01"], None),
        (["diskwriter", "/mnt/a", "4096", "later"], b"/mnt/a: 4096 bytes, later = 0\n"),
        (["cat", "/mnt/a"], b"x" * 4096),
    ])
    assert VFS_CALLS <= calls, VFS_CALLS - calls
    assert VFS_MODEL_CALLS <= calls, VFS_MODEL_CALLS - calls


def test_a_read_updates_the_access_time_as_relatime_does(machine):
    """relatime: a read after the file changed sets its atime; a second read leaves it; the
    read-only root keeps its times."""
    run(machine, ["diskwriter", "/tmp/at", "100", "none"])
    out = run(machine, ["progtest", "atime", "/tmp/at"]).decode().splitlines()
    assert out[0] == "atime moved: yes", out      # the first read after the write
    assert out[1] == "atime moved: no", out       # atime newer than mtime: kept
    out = run(machine, ["progtest", "atime", "/etc/hostname"]).decode().splitlines()
    assert out == ["atime moved: no", "atime moved: no"]


# kernel/fork.c, kernel/exit.c, fs/exec.c, kernel/futex/core.c, kernel/signal.c,
# kernel/sched/core.c and fair.c
TASK_CALLS = {
    ("__sched_fork", "sched_fork"),
    ("sched_cgroup_fork", "copy_process"),
    ("task_fork_fair", "sched_cgroup_fork"),
    ("enqueue_entity", "enqueue_task_fair"),
    ("dequeue_entity", "dequeue_task_fair"),
    ("put_prev_entity", "put_prev_task_fair"),
    ("pick_next_entity", "pick_next_task_fair"),
    ("exit_signals", "do_exit"),
    ("exit_mm_release", "do_exit"),              # exit_mm (inline)
    ("futex_exit_release", "exit_mm_release"),
    ("mm_release", "exit_mm_release"),
    ("exec_mm_release", "begin_new_exec"),       # exec_mmap (inline)
    ("futex_exec_release", "exec_mm_release"),
    ("mm_release", "exec_mm_release"),
    ("futex_cleanup", "futex_exit_release"),
    ("futex_cleanup", "futex_exec_release"),
    ("do_wait", "kernel_wait4"),
    ("wait_consider_task", "do_wait"),
}


def test_fork_exit_exec_and_fair_class_calls(machine):
    calls = traced_calls(machine, {f for f, _ in TASK_CALLS} | {"kernel_wait4", "get_task_mm"}, [
        (["progtest", "fork"], None),            # fork, the child's exit, the parent's wait4
        (["progtest", "spawn"], None),           # posix_spawn: clone, exec
        (["cat", "/proc/self/cmdline"], b"cat\0/proc/self/cmdline\0"),
        (["fsop", "task", "/tmp/fsop-btask"], None),   # threads: a running one preempted
        (["getuid-loop", "30000"], None),
    ])
    assert TASK_CALLS <= calls, TASK_CALLS - calls
    called = {f for f, _ in calls}
    assert {"kernel_wait4", "get_task_mm"} <= called


# kernel/cred.c: credentials copied, committed, dropped and freed on 6.1's paths (real-tracefs
# shows copy_creds <-copy_process, prepare_creds <-copy_creds, prepare_exec_creds <-bprm_execve,
# commit_creds <-begin_new_exec, exit_creds <-__put_task_struct, put_cred_rcu <-rcu_do_batch)
CRED_CALLS = {
    ("copy_creds", "copy_process"),
    ("prepare_creds", "copy_creds"),
    ("prepare_exec_creds", "bprm_execve"),
    ("prepare_creds", "prepare_exec_creds"),
    ("commit_creds", "begin_new_exec"),
    ("exit_creds", "__put_task_struct"),
    ("__put_cred", "exit_creds"),
    ("put_cred_rcu", "rcu_do_batch"),
    ("prepare_creds", "__sys_setuid"),
    ("commit_creds", "__sys_setuid"),
    ("abort_creds", "__sys_setuid"),        # setuid(1000) as 1000 without the capability
    ("prepare_creds", "__sys_setresuid"),
    ("commit_creds", "__sys_setresuid"),
    ("commit_creds", "__sys_setresgid"),
    ("commit_creds", "__sys_setregid"),
    ("commit_creds", "__sys_setreuid"),
    ("abort_creds", "__sys_setgid"),        # setgid(5) as 1000
    ("commit_creds", "__sys_setfsuid"),
    ("abort_creds", "__sys_setfsuid"),      # setfsuid(-1): the old fsuid, nothing changed
    ("commit_creds", "__sys_setfsgid"),
    ("__put_cred", "commit_creds"),
    ("prepare_creds", "do_faccessat"),      # access(2): the real ids for the check
    ("override_creds", "do_faccessat"),
    ("revert_creds", "do_faccessat"),
    ("__put_cred", "revert_creds"),
    ("put_cred_rcu", "__put_cred"),         # the override, freed at once (non_rcu)
}


def test_credential_calls(machine):
    calls = traced_calls(machine, {f for f, _ in CRED_CALLS}, [
        (["progtest", "fork"], None),
        (["fsop", "task", "/tmp/fsop-ctask"], None),   # the set*id calls, a child becoming uid 1000
        (["fsop", "stat", "/tmp/fsop-cstat"], None),   # access, faccessat
        (["getuid-loop", "30000"], None),              # (a grace period: the freed creds go)
    ])
    assert CRED_CALLS <= calls, CRED_CALLS - calls


def test_ids_survive_commits(machine):
    """A child's set*id calls change its own credentials only: the parent's ids stay (the
    child's copy is its own), and /proc/PID/status of the child shows the committed ones."""
    out = run(machine, ["fsop", "task", "/tmp/fsop-cids"]).decode()
    for line in ["setresuid(-1, 1000, -1) = 0", "geteuid() = 1000", "setuid(1000) without the capability = -1",
                 "setfsuid(0) gives the old fsuid = 1000", "setfsuid(-1) gives the old fsuid = 0",
                 "setfsuid(-1): unchanged = 1000", "setgid(5) as 1000 = -1", "the parent's geteuid() = 0"]:
        assert line + "\n" in out, (line, out)
    out = run(machine, ["cat", "/proc/self/status"]).decode()
    assert "\nUid:\t0\t0\t0\t0\n" in out and "\nGid:\t0\t0\t0\t0\n" in out, out


# kernel/groups.c: setgroups builds, sorts and commits a group_info; the old one goes with its cred
GROUPS_CALLS = {
    ("may_setgroups", "__do_sys_setgroups"),
    ("groups_alloc", "__do_sys_setgroups"),
    ("groups_sort", "__do_sys_setgroups"),
    ("set_current_groups", "__do_sys_setgroups"),
    ("prepare_creds", "set_current_groups"),
    ("set_groups", "set_current_groups"),
    ("commit_creds", "set_current_groups"),
    ("groups_free", "__do_sys_setgroups"),   # setgroups(1, bad address): the new one dropped
    ("groups_free", "put_cred_rcu"),         # replaced: freed with the cred that held it
}


def test_supplementary_group_calls(machine, build_static):
    calls = traced_calls(machine, {f for f, _ in GROUPS_CALLS}, [
        ([build_static("setgroups.c")], None),
        (["getuid-loop", "30000"], None),              # (a grace period: the old creds go)
    ])
    assert GROUPS_CALLS <= calls, GROUPS_CALLS - calls


# kernel/pid.c: a struct pid per task from fork to reaping, the ids of kill/tgkill found through
# it (real-tracefs: alloc_pid and attach_pid <-copy_process, detach_pid <-release_task,
# find_vpid <-kill_something_info, pid_task <-kill_pid_info, get_task_pid, pid_vnr and put_pid
# <-kernel_clone, find_get_pid <-kernel_wait4 and <-kernel_waitid; 6.1 tail-calls __change_pid and
# free_pid, which a frame-pointer build shows under detach_pid and __change_pid)
PID_CALLS = {
    ("alloc_pid", "copy_process"),
    ("attach_pid", "copy_process"),
    ("detach_pid", "release_task"),
    ("__change_pid", "detach_pid"),
    ("free_pid", "__change_pid"),
    ("delayed_put_pid", "rcu_do_batch"),
    ("put_pid", "delayed_put_pid"),
    ("find_vpid", "kill_something_info"),
    ("find_pid_ns", "find_vpid"),
    ("task_active_pid_ns", "find_vpid"),
    ("pid_task", "kill_pid_info"),
    ("find_task_by_vpid", "do_send_specific"),      # tgkill
    ("find_task_by_pid_ns", "find_task_by_vpid"),
    ("pid_task", "find_task_by_pid_ns"),
    ("find_task_by_vpid", "__do_sys_prlimit64"),
    ("pid_nr_ns", "__task_pid_nr_ns"),             # gettid, getpid's thread-group leader
    ("get_task_pid", "kernel_clone"),              # the child's pid, held while it is woken
    ("pid_vnr", "kernel_clone"),
    ("put_pid", "kernel_clone"),
    ("find_get_pid", "kernel_wait4"),              # waitpid(pid): the struct pid it waits for
    ("put_pid", "kernel_wait4"),
    ("find_get_pid", "kernel_waitid"),             # waitid(P_PID, ...)
    ("put_pid", "kernel_waitid"),
    ("exchange_tids", "de_thread"),                # a thread's exec takes the leader's pid
}


def test_pid_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PID_CALLS}, [
        (["progtest", "fork"], None),
        (["fsop", "task", "/tmp/fsop-ptask"], None),   # kill, prlimit64 of another pid
        (["progtest", "signal"], b"handler saw signal 10\n"),   # raise(): tgkill
        (["progtest", "threadexec"], None),
        (["syscall", "247", "1", "1", "0", "4"], None, 1),   # waitid(P_PID, 1, NULL, WEXITED): ECHILD
        (["getuid-loop", "30000"], None),              # (a grace period: the freed pids go)
    ])
    assert PID_CALLS <= calls, PID_CALLS - calls


def test_kill_finds_a_task_by_its_struct_pid(machine):
    """kill(2) finds the task through its pid's struct pid: init's is found, an unused one (or
    a reaped task's) is ESRCH."""
    assert run(machine, ["syscall", "62", "1", "0"]) == b"0\n"          # kill(1, 0)
    assert run(machine, ["syscall", "62", "999", "0"], status=1).startswith(b"-3 ")       # kill(999, 0): ESRCH
    assert run(machine, ["syscall", "234", "1", "999", "0"], status=1).startswith(b"-3 ")  # tgkill(1, 999, 0)


# mm/mmu_gather.c, mm/swap_state.c, mm/swap.c: munmap and madvise(MADV_DONTNEED) gather the
# pages they unmap and free them once the TLBs forgot them (real-tracefs: __tlb_remove_page_size
# <-unmap_page_range, tlb_batch_pages_flush <-tlb_finish_mmu, free_pages_and_swap_cache
# <-tlb_batch_pages_flush, free_unref_page_list <-release_pages; 6.1 tail-calls release_pages)
MMU_GATHER_CALLS = {
    ("tlb_gather_mmu", "unmap_region"),
    ("tlb_finish_mmu", "unmap_region"),
    ("tlb_gather_mmu", "zap_page_range"),
    ("tlb_finish_mmu", "zap_page_range"),
    ("unmap_single_vma", "zap_page_range"),
    ("__tlb_remove_page_size", "unmap_page_range"),
    ("tlb_batch_pages_flush", "tlb_finish_mmu"),
    ("free_pages_and_swap_cache", "tlb_batch_pages_flush"),
    ("release_pages", "free_pages_and_swap_cache"),
    ("free_unref_page_list", "release_pages"),
}


def test_mmu_gather_calls(machine):
    calls = traced_calls(machine, {f for f, _ in MMU_GATHER_CALLS}, [
        (["fsop", "mm", "/tmp/fsop-gmm"], None),       # munmap, madvise(MADV_DONTNEED)
        (["fsop", "task", "/tmp/fsop-gtask"], None),
    ])
    assert MMU_GATHER_CALLS <= calls, MMU_GATHER_CALLS - calls


# fs/proc/array.c, fs/seq_file.c
PROC_CALLS = {
    ("proc_task_name", "proc_pid_status"),
    ("seq_put_decimal_ull", "proc_pid_status"),
    ("seq_put_decimal_ull_width", "seq_put_decimal_ull"),
    ("task_mem", "proc_pid_status"),
    ("seq_put_decimal_ull_width", "task_mem"),
    ("render_sigset_t", "proc_pid_status"),
    ("get_task_cred", "proc_pid_status"),          # task_state()'s reference to the task's ids
}
# 6.1's /proc/self/status of a cat, as far as the model has its lines (real-tracefs)
STATUS_KEYS = ["Name", "Umask", "State", "Tgid", "Ngid", "Pid", "PPid", "TracerPid", "Uid", "Gid",
               "FDSize", "Groups", "NStgid", "NSpid", "NSpgid", "NSsid", "VmPeak", "VmSize", "VmLck",
               "VmPin", "VmHWM", "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmData", "VmStk", "VmExe",
               "VmLib", "VmPTE", "VmSwap", "CoreDumping", "Threads", "SigQ", "SigPnd", "ShdPnd",
               "SigBlk", "SigIgn", "SigCgt", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
               "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"]


def test_proc_status_as_6_1_writes_it(machine):
    calls = traced_calls(machine, {f for f, _ in PROC_CALLS}, [(["cat", "/proc/self/status"], None)])
    assert PROC_CALLS <= calls, PROC_CALLS - calls
    out = run(machine, ["cat", "/proc/self/status"]).decode()
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == STATUS_KEYS, out
    fields = dict(line.split(":\t", 1) for line in lines)
    assert fields["Groups"] == " "                     # 6.1's trailing space
    assert re.fullmatch(r" *\d+ kB", fields["VmSize"]) and len(fields["VmSize"]) == 11
    assert re.fullmatch(r"[0-9a-f]{16}", fields["SigBlk"])
    assert fields["SigQ"] == "0/16383"                 # RLIMIT_SIGPENDING's soft limit


# mm/mmap.c, mm/util.c, fs/seq_file.c
MMAP_SEQ_CALLS = {
    ("vm_mmap", "elf_map"),
    ("vm_mmap_pgoff", "vm_mmap"),
    ("split_vma", "mprotect_fixup"),
    ("__split_vma", "split_vma"),
    ("seq_read_iter", "seq_read"),
    ("seq_open", "single_open"),
}


def test_mmap_and_seq_file_calls(machine):
    calls = traced_calls(machine, {f for f, _ in MMAP_SEQ_CALLS}, [
        (["progtest", "mmap"], None),            # exec's elf_map; mprotect of a middle page
        (["cat", "/proc/self/status"], None),
    ])
    assert MMAP_SEQ_CALLS <= calls, MMAP_SEQ_CALLS - calls


# kernel/time/timer.c
TIMER_CALLS = {
    ("lock_timer_base", "__mod_timer"),
    ("lock_timer_base", "timer_delete"),
    ("lock_timer_base", "__timer_delete_sync"),
    ("timer_delete", "sk_stop_timer"),                  # del_timer (inline)
    ("__timer_delete_sync", "schedule_timeout"),       # del_timer_sync: 6.1's trace shows it so
}


def test_timer_wheel_calls(machine):
    calls = traced_calls(machine, {f for f, _ in TIMER_CALLS}, [
        (["fsop", "task", "/tmp/fsop-timer"], None),
        (["nettest", "tcp"], None),
    ])
    assert TIMER_CALLS <= calls, TIMER_CALLS - calls


# kernel/time/hrtimer.c, tick-oneshot.c
HRTIMER_CALLS = {
    ("__hrtimer_init", "hrtimer_init"),
    ("hrtimer_update_next_event", "hrtimer_reprogram"),
    ("__hrtimer_next_event_base", "hrtimer_update_next_event"),
    ("tick_program_event", "hrtimer_reprogram"),
    ("clockevents_program_event", "tick_program_event"),
}


def test_hrtimer_calls(machine):
    calls = traced_calls(machine, {f for f, _ in HRTIMER_CALLS}, [
        (["sleep", "0.1"], None),
        (["progtest", "fork"], None),            # copy_signal's real_timer: hrtimer_init
    ])
    assert HRTIMER_CALLS <= calls, HRTIMER_CALLS - calls


# kernel/user_namespace.c: ids in and out of the initial namespace
USERNS_CALLS = {
    ("from_kuid", "from_kuid_munged"),
    ("map_id_up", "from_kuid"),
    ("from_kgid", "from_kgid_munged"),
    ("map_id_up", "from_kgid"),
    ("from_kuid_munged", "cp_new_stat"),
    ("from_kgid_munged", "cp_new_stat"),
    ("from_kuid_munged", "proc_pid_status"),
    ("make_kuid", "__sys_setuid"),
    ("map_id_range_down", "make_kuid"),
    ("make_kgid", "__sys_setgid"),
    ("map_id_range_down", "make_kgid"),
}


def test_user_namespace_id_calls(machine):
    calls = traced_calls(machine, {f for f, _ in USERNS_CALLS}, [
        (["fsop", "stat", "/tmp/fsop-ustat"], None),
        (["fsop", "task", "/tmp/fsop-utask"], None),   # the set*id calls, a child becoming uid 1000
        (["cat", "/proc/self/status"], None),
        (["getuid-loop", "3"], None),
    ])
    assert USERNS_CALLS <= calls, USERNS_CALLS - calls


# net/core/sock.c, net/ipv4/tcp.c: socket options through the protocol, a socket's freeing
SOCKOPT_CALLS = {
    ("sk_setsockopt", "sock_setsockopt"),
    ("sockopt_lock_sock", "sk_setsockopt"),
    ("sockopt_release_sock", "sk_setsockopt"),
    ("sk_getsockopt", "sock_getsockopt"),
    ("sock_common_setsockopt", "__sys_setsockopt"),
    ("tcp_setsockopt", "sock_common_setsockopt"),
    ("do_tcp_setsockopt", "tcp_setsockopt"),
    ("sockopt_lock_sock", "do_tcp_setsockopt"),
    ("__tcp_sock_set_nodelay", "do_tcp_setsockopt"),
    ("sock_common_getsockopt", "__sys_getsockopt"),
    ("tcp_getsockopt", "sock_common_getsockopt"),
    ("do_tcp_getsockopt", "tcp_getsockopt"),
    ("tcp_get_info", "do_tcp_getsockopt"),
    ("sk_free", "sock_put"),
    ("__sk_free", "sk_free"),
    ("sk_destruct", "__sk_free"),
    ("__sk_destruct", "sk_destruct"),
}


def test_socket_option_and_sock_free_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SOCKOPT_CALLS}, [(["nettest", "tcp"], None)])
    assert SOCKOPT_CALLS <= calls, SOCKOPT_CALLS - calls
    out = run(machine, ["nettest", "tcp"]).decode()
    # 6.1's do_tcp_setsockopt/do_tcp_getsockopt: TCP_NODELAY set and read back, an unknown
    # SOL_TCP option ENOPROTOOPT
    assert "setsockopt(TCP_NODELAY) = 0\n" in out and "TCP_NODELAY = 1\n" in out, out
    assert "getsockopt(SOL_TCP, 99) = -92\n" in out, out
    # TCP_INFO (do_tcp_getsockopt -> tcp_get_info) from the client once its hello is acked and
    # the reply read: what the real 6.1 reports of these counters (the same program there)
    client = [line for line in out.splitlines() if line.startswith("client: ")]
    i = client.index("client: getsockopt(TCP_INFO) = 0")
    assert client[i:i + 14] == [
        "client: getsockopt(TCP_INFO) = 0", "client: tcp_info length >= 232 (6.1's; later kernels' longer) = 1", "client: tcpi_state = 1",
        "client: tcpi_ca_state = 0", "client: tcpi_rto >= 200 ms = 1", "client: tcpi_unacked = 0",
        "client: tcpi_total_retrans = 0", "client: tcpi_bytes_acked = 6", "client: tcpi_bytes_received = 5",
        "client: tcpi_data_segs_in = 1", "client: tcpi_data_segs_out = 1", "client: tcpi_bytes_sent = 5",
        "client: getsockopt(TCP_INFO, 8 bytes) = 0", "client: its length = 8"], client


# `nettest async` on the real 6.1 (real-tracefs): O_ASYNC TCP sockets signalled by
# sock_wake_async: the connect (POLL_OUT), the listener's new connection (plain SIGIO), data and
# the peer's FIN (POLL_IN)
ASYNC_TCP_6_1 = """\
rt_sigprocmask(SIG_BLOCK, SIGIO|SIGUSR1) = 0
bind = 0
listen = 0
F_SETOWN(listener) = 0
F_SETFL(listener, O_ASYNC) = 0
F_SETOWN(client) = 0
F_SETSIG(client, SIGUSR1) = 0
F_SETFL(client, O_ASYNC) = 0
connect = 0
rt_sigtimedwait: the client's connect = 10
  code 2 band 772
rt_sigtimedwait: the listener's connection = 29
rt_sigtimedwait: nothing more = -11
accept = 1
F_SETOWN(accepted) = 0
F_SETSIG(accepted, SIGUSR1) = 0
F_SETFL(accepted, O_ASYNC) = 0
write(client) = 1
rt_sigtimedwait: data for the accepted socket = 10
  code 1 band 65
shutdown(client, SHUT_WR) = 0
rt_sigtimedwait: its FIN = 10
  code 1 band 65
"""

ASYNC_CALLS = {
    ("sock_fasync", "do_fcntl"),  # (6.1's setfl is inlined there)
    ("fasync_helper", "sock_fasync"),
    ("sock_wake_async", "sock_def_readable"),
    ("kill_fasync", "sock_wake_async"),
    ("send_sigio", "kill_fasync"),
    ("send_sigio_to_task", "send_sigio"),
}


def test_o_async_tcp_sockets_as_linux(machine):
    out = run(machine, ["nettest", "async"]).decode()
    assert out == ASYNC_TCP_6_1
    calls = traced_calls(machine, {f for f, _ in ASYNC_CALLS}, [(["nettest", "async"], None)])
    assert ASYNC_CALLS <= calls, ASYNC_CALLS - calls


SOCK_IOCTL_CALLS = {
    ("sock_ioctl", "vfs_ioctl"),
    ("sock_do_ioctl", "sock_ioctl"),
    ("inet_ioctl", "sock_do_ioctl"),
    ("tcp_ioctl", "inet_ioctl"),
}


def test_socket_ioctl_calls(machine):
    """FIONREAD/SIOCOUTQ on TCP sockets through 6.1's chain (their answers: test_net.py's
    `nettest ioctl`, the host's)"""
    calls = traced_calls(machine, {f for f, _ in SOCK_IOCTL_CALLS}, [(["nettest", "ioctl"], None)])
    assert SOCK_IOCTL_CALLS <= calls, SOCK_IOCTL_CALLS - calls


FDINFO_CALLS = {
    ("proc_lookupfdinfo", "__lookup_slow"),
    ("proc_fdinfo_instantiate", "proc_lookupfdinfo"),
    ("seq_fdinfo_open", "do_dentry_open"),
    ("seq_show", "seq_read_iter"),
    ("show_fd_locks", "seq_show"),
    ("__show_fd_locks", "show_fd_locks"),
    ("lock_get_status", "__show_fd_locks"),
}


def test_proc_fdinfo_calls(machine):
    """/proc/self/fdinfo/N (6.1's fs/proc/fd.c) with its lock lines (their text: test_vfs.py's
    proclocks and lease families, the host's and the real 6.1's)"""
    calls = traced_calls(machine, {f for f, _ in FDINFO_CALLS}, [(["fsop", "proclocks", "/tmp/fdinfo"], None)])
    assert FDINFO_CALLS <= calls, FDINFO_CALLS - calls


# fs/seq_file.c, fs/proc/base.c: a /proc file's records through single_open's operations
SEQ_CALLS = {
    ("single_start", "seq_read_iter"),
    ("single_next", "seq_read_iter"),
    ("single_stop", "seq_read_iter"),
    ("proc_single_show", "seq_read_iter"),
    ("proc_pid_status", "proc_single_show"),
    ("seq_open", "single_open"),
    ("seq_release", "single_release"),
}


def test_seq_file_single_operations(machine):
    calls = traced_calls(machine, {f for f, _ in SEQ_CALLS}, [(["cat", "/proc/self/status"], None)])
    assert SEQ_CALLS <= calls, SEQ_CALLS - calls


def test_a_root_proc_file_shows_without_proc_single_show(machine):
    """/proc/uptime is proc_create_single's: single_open on its show, no process to find."""
    calls = traced_calls(machine, {"proc_single_show", "single_start"}, [(["cat", "/proc/uptime"], None)])
    assert {f for f, _ in calls} == {"single_start"}, calls


# mm/memory.c, mm/mempolicy.c, mm/page_alloc.c, mm/slub.c, fs/dcache.c, fs/inode.c
MM_CALLS = {
    ("vm_normal_page", "unmap_page_range"),     # zap_pte_range (inline): munmap's
    ("vm_normal_page", "copy_page_range"),      # copy_present_pte (inline)
    ("vm_normal_page", "do_wp_page"),
    ("__folio_alloc", "vma_alloc_folio"),
    ("__alloc_pages", "__folio_alloc"),
    ("setup_object", "allocate_slab"),
    ("kmem_cache_alloc_lru", "__d_alloc"),
    ("kmem_cache_alloc_lru", "alloc_inode"),    # alloc_inode_sb (inline)
}


def test_page_and_slab_helper_calls(machine):
    calls = traced_calls(machine, {f for f, _ in MM_CALLS}, [
        (["progtest", "fork"], None),
        (["fsop", "open", "/tmp/fsop-bopen"], None),
        (["fsop", "mm", "/tmp/fsop-bmm"], None),          # munmap, MADV_DONTNEED
    ])
    assert MM_CALLS <= calls, MM_CALLS - calls


# fs/file.c, fs/read_write.c, fs/readdir.c, fs/stat.c, fs/ioctl.c, fs/fcntl.c: the light fd
# references (fdget*, no reference taken while the table is not shared) and f_pos's lock
FD_CALLS = {
    ("__fdget_pos", "ksys_read"),
    ("__fdget_pos", "ksys_write"),
    ("__fdget_pos", "ksys_lseek"),
    ("__fdget_pos", "__x64_sys_getdents64"),
    ("__fdget", "__fdget_pos"),
    ("__fget_light", "__fdget"),
    ("__fdget", "ksys_pread64"),
    ("__fdget", "__x64_sys_ioctl"),
    ("__fdget_raw", "vfs_fstat"),
    ("__fdget_raw", "__x64_sys_fcntl"),
    ("__fget_light", "__fdget_raw"),
}


def test_light_fd_reference_calls(machine):
    funcs = {f for f, _ in FD_CALLS} | {"fput", "__f_unlock_pos"}
    calls = traced_calls(machine, funcs, [
        (["fsop", f, f"/tmp/fsop-fd{f}"], None) for f in ("open", "dir", "fd", "rw", "stat")])
    assert FD_CALLS <= calls, FD_CALLS - calls
    # a single-threaded task's reads take no reference: no fput after them
    assert ("fput", "ksys_read") not in calls


def test_a_shared_file_locks_its_position(machine):
    """a file whose count is past one (a dup) takes f_pos_lock (fdput_pos: __f_unlock_pos)."""
    calls = traced_calls(machine, {"__fdget_pos", "__f_unlock_pos", "fput", "mutex_lock"},
                         [(["fsop", "fd", "/tmp/fsop-fdshare"], None), (["progtest", "threads"], None)])
    assert ("__f_unlock_pos", "ksys_write") in calls or ("__f_unlock_pos", "ksys_read") in calls, calls
    assert ("mutex_lock", "__fdget_pos") in calls, calls


# fs/libfs.c, fs/dcache.c, fs/readdir.c: a tmpfs directory's readdir cursor, dentries freed
# after a grace period, the names getdents64 checks
DCACHE_CALLS = {
    ("d_alloc_cursor", "dcache_dir_open"),
    ("d_alloc_anon", "d_alloc_cursor"),
    ("scan_positives", "dcache_readdir"),
    ("dput", "scan_positives"),
    ("verify_dirent_name", "filldir64"),
    ("__d_free", "rcu_do_batch"),
    ("__d_free_external", "rcu_do_batch"),      # a name past DNAME_INLINE_LEN
}
LONG_NAME = "/tmp/" + "n" * 48


def test_readdir_cursor_and_dentry_lru_calls(machine):
    calls = traced_calls(machine, {f for f, _ in DCACHE_CALLS}, [
        (["fsop", "dir", "/tmp/fsop-bdir"], None),
        (["fsop", "link", "/tmp/fsop-blink"], None),
        (["cat", LONG_NAME], None, 1),             # a negative dentry, killed at its dput
        (["sleep", "0.05"], None),                 # a grace period
    ])
    assert DCACHE_CALLS <= calls, DCACHE_CALLS - calls


def test_readdir_keeps_its_place_when_an_entry_goes(machine):
    """6.1's cursor: the entries after the last one given are all seen when an earlier one is
    removed between two getdents64 calls (a position count would skip one)."""
    out = run(machine, ["fsop", "dir", "/tmp/fsop-bdir2"]).decode()
    assert "names seen by readdir with one removed on the way (6) = 6\n" in out, out


# mm/mmap.c, fs/exec.c, fs/open.c: an mmap's address-space limits and write notification, a
# noexec mount refusing execution
MMAP_LIMIT_CALLS = {
    ("vma_wants_writenotify", "vma_set_page_prot"),
    ("path_noexec", "do_mmap"),                  # a private file mapping (exec's elf_map)
    ("path_noexec", "may_open"),                 # exec's open (MAY_EXEC) of a file on noexec /proc
    ("path_noexec", "do_faccessat"),             # access(X_OK) of a regular file
}
# the model's mmap_region body is __mmap_region (do_mmap calls it with the VMA's operations)
MMAP_LIMIT_MODEL_CALLS = {("may_expand_vm", "__mmap_region")}


def test_mmap_limit_and_noexec_calls(machine):
    funcs = {f for f, _ in MMAP_LIMIT_CALLS | MMAP_LIMIT_MODEL_CALLS}
    calls = traced_calls(machine, funcs, [
        (["progtest", "mmap"], None),
        (["fsop", "stat", "/tmp/fsop-bnoexec"], None),   # access(X_OK), an exec on /proc
        (["fsop", "mm", "/tmp/fsop-bnoexec-mm"], None),
    ])
    assert MMAP_LIMIT_CALLS <= calls, MMAP_LIMIT_CALLS - calls
    assert MMAP_LIMIT_MODEL_CALLS <= calls, MMAP_LIMIT_MODEL_CALLS - calls


# fs/inode.c, fs/attr.c, security/security.c, security/commoncap.c: a write drops the file's
# set-id bits and capabilities (file_remove_privs), once per inode until its mode changes
PRIVS_CALLS = {
    ("file_remove_privs", "__generic_file_write_iter"),
    ("__file_remove_privs", "file_remove_privs"),
    ("dentry_needs_remove_privs", "__file_remove_privs"),
    ("setattr_should_drop_suidgid", "dentry_needs_remove_privs"),
    ("setattr_should_drop_sgid", "setattr_should_drop_suidgid"),
    ("security_inode_need_killpriv", "dentry_needs_remove_privs"),
    ("cap_inode_need_killpriv", "security_inode_need_killpriv"),
    ("__vfs_getxattr", "cap_inode_need_killpriv"),
    ("notify_change", "__file_remove_privs"),      # __remove_privs (inline): the suid file's
}


def test_a_write_removes_privileges(machine):
    calls = traced_calls(machine, {f for f, _ in PRIVS_CALLS}, [(["fsop", "task", "/tmp/fsop-bprivs"], None)])
    assert PRIVS_CALLS <= calls, PRIVS_CALLS - calls
    out = run(machine, ["fsop", "task", "/tmp/fsop-bprivs2"]).decode()
    # 6.1 (and the host, test_vfs): the owner's write drops S_ISUID; root's chmod sets it again
    assert "its mode = 2541\nwrite(x) = 1\nits mode after the write = 493\n" in out, out
    assert "its mode after another write = 493\n" in out, out


# net/core/sock.c, net/core/request_sock.c, net/core/stream.c, net/ipv4/af_inet.c,
# inet_connection_sock.c, inet_hashtables.c, tcp.c, tcp_timer.c: TCP sockets' life
TCP_LIFE_CALLS = {
    ("lock_sock_nested", "tcp_sendmsg"),        # lock_sock (inline)
    ("sk_stream_write_space", "tcp_ack"),       # TCP's sk_write_space (tcp_init_sock)
    ("lock_sock_nested", "inet_listen"),
    ("lock_sock_nested", "tcp_close"),
    ("__tcp_close", "tcp_close"),
    ("sock_init_data_uid", "sock_init_data"),
    ("reqsk_queue_alloc", "inet_csk_listen_start"),
    ("inet_sk_state_store", "inet_csk_listen_start"),
    ("inet_sk_state_store", "tcp_set_state"),
    ("__inet_hash", "inet_hash"),
    ("__inet_hash_connect", "inet_hash_connect"),
    ("inet_ehash_nolisten", "__inet_hash_connect"),
    ("inet_ehash_nolisten", "tcp_v4_syn_recv_sock"),
    ("tcp_create_openreq_child", "tcp_v4_syn_recv_sock"),
    ("inet_ehash_insert", "inet_ehash_nolisten"),
    ("inet_csk_init_xmit_timers", "tcp_init_xmit_timers"),
    ("inet_csk_clear_xmit_timers", "tcp_v4_destroy_sock"),
    ("inet_csk_clear_xmit_timers", "tcp_done"),  # tcp_clear_xmit_timers (inline)
    ("sk_stream_kill_queues", "inet_csk_destroy_sock"),
    ("inet_sock_destruct", "__sk_destruct"),
}


def test_tcp_socket_life_calls(machine):
    calls = traced_calls(machine, {f for f, _ in TCP_LIFE_CALLS}, [(["nettest", "tcp"], None)])
    assert TCP_LIFE_CALLS <= calls, TCP_LIFE_CALLS - calls


# net/ipv4/af_inet.c, datagram.c, udp.c, net/core/sock.c: a UDP socket's binding, connect,
# receive path and close
UDP_CALLS = {
    ("inet_send_prepare", "inet_sendmsg"),
    ("inet_autobind", "inet_send_prepare"),     # an unbound socket's first send
    ("udp_v4_get_port", "inet_autobind"),
    ("udp_lib_get_port", "udp_v4_get_port"),
    ("ip4_datagram_connect", "inet_dgram_connect"),
    ("__ip4_datagram_connect", "ip4_datagram_connect"),
    ("udp_unicast_rcv_skb", "__udp4_lib_rcv"),
    ("udp_queue_rcv_skb", "udp_unicast_rcv_skb"),
    ("udp_queue_rcv_one_skb", "udp_queue_rcv_skb"),
    ("__udp_enqueue_schedule_skb", "udp_queue_rcv_one_skb"),
    ("__skb_recv_udp", "udp_recvmsg"),
    ("skb_consume_udp", "udp_recvmsg"),
    ("udp_rmem_release", "skb_consume_udp"),
    ("sk_common_release", "udp_lib_close"),     # (udp.h's inline, out of line: udp_prot.close)
    ("udp_lib_unhash", "sk_common_release"),
}


def test_udp_socket_calls(machine):
    calls = traced_calls(machine, {f for f, _ in UDP_CALLS}, [(["nettest", "udp"], None)])
    assert UDP_CALLS <= calls, UDP_CALLS - calls


# net/ipv6/af_inet6.c, inet6_hashtables.c, ipv6_sockglue.c, tcp_ipv6.c, ip6_output.c,
# ip6_input.c, inet6_connection_sock.c: TCP over ::1, and IPv4 on a dual-stack socket
TCP6_CALLS = {
    ("inet6_create", "__sock_create"),
    ("tcp_v6_init_sock", "inet6_create"),
    ("tcp_init_sock", "tcp_v6_init_sock"),
    ("__inet6_bind", "inet6_bind"),
    ("inet_csk_get_port", "__inet6_bind"),
    ("inet_rcv_saddr_equal", "inet_bind_conflict"),
    ("ipv6_rcv_saddr_equal", "inet_rcv_saddr_equal"),
    ("inet6_getname", "do_accept"),
    ("ipv6_setsockopt", "tcp_setsockopt"),
    ("do_ipv6_setsockopt", "ipv6_setsockopt"),
    ("ipv6_getsockopt", "tcp_getsockopt"),
    ("do_ipv6_getsockopt", "ipv6_getsockopt"),
    ("inet6_hash", "inet_csk_listen_start"),
    ("__inet_hash", "inet6_hash"),
    ("tcp_v6_connect", "__inet_stream_connect"),
    ("inet6_hash_connect", "tcp_v6_connect"),
    ("__inet_hash_connect", "inet6_hash_connect"),
    ("tcp_connect", "tcp_v6_connect"),
    ("tcp_v4_connect", "tcp_v6_connect"),           # to ::ffff:127.0.0.1
    ("inet6_csk_xmit", "__tcp_transmit_skb"),
    ("ip6_xmit", "inet6_csk_xmit"),
    ("ip6_output", "ip6_xmit"),
    ("ip6_finish_output", "ip6_output"),
    ("ip6_finish_output2", "ip6_finish_output"),
    ("__dev_queue_xmit", "ip6_finish_output2"),
    ("ip6_rcv_core", "ipv6_rcv"),
    ("ip6_rcv_finish", "ipv6_rcv"),
    ("ip6_input", "ip6_rcv_finish"),
    ("ip6_input_finish", "ip6_input"),
    ("ip6_protocol_deliver_rcu", "ip6_input_finish"),
    ("tcp_v6_rcv", "ip6_protocol_deliver_rcu"),
    ("tcp_v6_fill_cb", "tcp_v6_rcv"),
    ("__inet6_lookup_established", "tcp_v6_rcv"),
    ("inet6_lookup_listener", "tcp_v6_rcv"),
    ("tcp_v6_do_rcv", "tcp_v6_rcv"),
    ("tcp_v6_send_reset", "tcp_v6_rcv"),            # the connect nobody listens for
    ("tcp_v6_send_response", "tcp_v6_send_reset"),
    ("tcp_v6_conn_request", "tcp_rcv_state_process"),
    ("tcp_conn_request", "tcp_v6_conn_request"),
    ("tcp_v6_send_synack", "tcp_conn_request"),
    ("ip6_xmit", "tcp_v6_send_synack"),
    ("tcp_v6_syn_recv_sock", "tcp_check_req"),
    ("tcp_create_openreq_child", "tcp_v6_syn_recv_sock"),
    ("inet_csk_clone_lock", "tcp_create_openreq_child"),
    ("inet_ehash_nolisten", "tcp_v6_syn_recv_sock"),
    # IPv4 segments of the dual-stack listener and its IPv4-mapped children
    ("tcp_v4_conn_request", "tcp_v6_conn_request"),
    ("tcp_v4_syn_recv_sock", "tcp_v6_syn_recv_sock"),
    ("inet6_sock_destruct", "__sk_destruct"),
    ("inet6_release", "__sock_release"),
}


def test_tcp_over_ipv6_calls(machine):
    calls = traced_calls(machine, {f for f, _ in TCP6_CALLS}, [(["nettest", "tcp6"], None)])
    assert TCP6_CALLS <= calls, TCP6_CALLS - calls


# net/ipv6/udp.c, datagram.c, ip6_output.c: UDP over ::1, and IPv4 on a dual-stack socket
UDP6_CALLS = {
    ("udpv6_sendmsg", "inet6_sendmsg"),
    ("udp_v6_get_port", "__inet6_bind"),
    ("udp_v6_get_port", "inet_autobind"),
    ("udp_lib_get_port", "udp_v6_get_port"),
    ("ip6_make_skb", "udpv6_sendmsg"),
    ("udp_v6_send_skb", "udpv6_sendmsg"),
    ("ip6_send_skb", "udp_v6_send_skb"),
    ("ip6_local_out", "ip6_send_skb"),
    ("__ip6_local_out", "ip6_local_out"),
    ("ip6_output", "ip6_local_out"),
    ("udp_sendmsg", "udpv6_sendmsg"),               # to ::ffff:127.0.0.1
    ("udpv6_rcv", "ip6_protocol_deliver_rcu"),
    ("__udp6_lib_rcv", "udpv6_rcv"),
    ("__udp6_lib_lookup", "__udp6_lib_rcv"),
    ("udp6_unicast_rcv_skb", "__udp6_lib_rcv"),
    ("udpv6_queue_rcv_skb", "udp6_unicast_rcv_skb"),
    ("udpv6_queue_rcv_one_skb", "udpv6_queue_rcv_skb"),
    ("__udp_enqueue_schedule_skb", "udpv6_queue_rcv_one_skb"),
    ("udpv6_recvmsg", "inet6_recvmsg"),
    ("__skb_recv_udp", "udpv6_recvmsg"),
    ("ip6_datagram_connect", "inet_dgram_connect"),
    ("__ip6_datagram_connect", "ip6_datagram_connect"),
}


def test_udp_over_ipv6_calls(machine):
    calls = traced_calls(machine, {f for f, _ in UDP6_CALLS}, [(["nettest", "udp6"], None)])
    assert UDP6_CALLS <= calls, UDP6_CALLS - calls


# fs/pipe.c: F_SETPIPE_SZ resizes the ring
PIPE_SIZE_CALLS = {
    ("get_pipe_info", "pipe_fcntl"),
    ("round_pipe_size", "pipe_fcntl"),          # pipe_set_size (inline)
    ("pipe_resize_ring", "pipe_fcntl"),
}


def test_pipe_resize_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PIPE_SIZE_CALLS}, [(["fsop", "pipe", "/tmp/fsop-bpipe"], None)])
    assert PIPE_SIZE_CALLS <= calls, PIPE_SIZE_CALLS - calls
    out = run(machine, ["fsop", "pipe", "/tmp/fsop-bpipe2"]).decode()
    # 6.1's pipe_set_size: a ring holding 16 pages is not shrunk to one (EBUSY); grown to 32 it
    # takes 16 more pages
    assert "fcntl(full q[1], F_SETPIPE_SZ, 4096) = -16\n" in out, out
    assert "fcntl(q[1], F_SETPIPE_SZ, 100000) = 131072\n" in out, out
    assert "write(q[1], 70000) into the grown ring = 65536\n" in out, out


# net/unix/af_unix.c: a socket pair's making, reads and end
UNIX_CALLS = {
    ("unix_create1", "unix_create"),
    ("sk_alloc", "unix_create1"),
    ("unix_stream_read_generic", "unix_stream_recvmsg"),
    ("unix_stream_read_actor", "unix_stream_read_generic"),
    ("__unix_dgram_recvmsg", "unix_dgram_recvmsg"),
    ("unix_sock_destructor", "__sk_destruct"),
}


def test_unix_socket_calls(machine):
    calls = traced_calls(machine, {f for f, _ in UNIX_CALLS}, [(["nettest", "unix"], None)])
    assert UNIX_CALLS <= calls, UNIX_CALLS - calls


# fs/proc/base.c: a process's directory: its lookup and listing through the entries' table,
# its inode's owner (task_dump_owner) at lookup, revalidation and stat
PROC_DIR_CALLS = {
    ("proc_pid_instantiate", "proc_pid_lookup"),
    ("proc_pid_make_inode", "proc_pid_instantiate"),
    ("task_dump_owner", "proc_pid_make_inode"),
    ("proc_pident_lookup", "proc_tgid_base_lookup"),
    ("proc_pident_readdir", "proc_tgid_base_readdir"),
    ("pid_update_inode", "pid_revalidate"),
    ("task_dump_owner", "pid_update_inode"),
    ("pid_getattr", "vfs_getattr_nosec"),
    ("task_dump_owner", "pid_getattr"),
}


def test_proc_pid_directory_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PROC_DIR_CALLS}, [
        (["cat", "/proc/self/status"], None),
        (["cat", "/proc/1/status"], None),
        (["fsop", "ls", "/proc/1"], None),
        (["fsop", "stat", "/tmp/fsop-bproc"], None),
    ])
    assert PROC_DIR_CALLS <= calls, PROC_DIR_CALLS - calls


# fs/proc/{uptime,stat,loadavg,meminfo,version,array,task_mmu,base}.c, fs/filesystems.c,
# kernel/sched/{core,loadavg}.c, kernel/time/time.c, mm/page_alloc.c, kernel/sys.c: the system
# files' and a process's shows under their 6.1 names, and the helpers they share with sysinfo()
# and times()
PROC_FILE_CALLS = {
    ("uptime_proc_show", "seq_read_iter"),
    ("show_stat", "seq_read_iter"),
    ("nr_context_switches", "show_stat"),
    ("loadavg_proc_show", "seq_read_iter"),
    ("get_avenrun", "loadavg_proc_show"),
    ("meminfo_proc_show", "seq_read_iter"),
    ("si_meminfo", "meminfo_proc_show"),
    ("version_proc_show", "seq_read_iter"),
    ("filesystems_proc_show", "seq_read_iter"),
    ("comm_show", "proc_single_show"),
    ("proc_tgid_stat", "proc_single_show"),
    ("do_task_stat", "proc_tgid_stat"),
    ("task_vsize", "do_task_stat"),
    ("nsec_to_clock_t", "do_task_stat"),
    ("show_map", "proc_pid_maps_show"),
    ("show_map_vma", "show_map"),
    ("get_avenrun", "__do_sys_sysinfo"),          # do_sysinfo (inline)
    ("si_meminfo", "__do_sys_sysinfo"),
    ("nsec_to_clock_t", "do_sys_times"),
}


def test_proc_file_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PROC_FILE_CALLS}, [
        (["cat", "/proc/uptime", "/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/version",
          "/proc/filesystems", "/proc/self/comm", "/proc/self/stat", "/proc/self/maps"], None),
        (["fsop", "task", "/tmp/fsop-bprocfiles"], None),
    ])
    assert PROC_FILE_CALLS <= calls, (PROC_FILE_CALLS - calls, calls)


# fs/read_write.c, fs/attr.c: vectored reads and writes at an offset (the v2 calls at the file's
# position for an offset of -1), and a setattr's change copied by the file system
VECTOR_AND_SETATTR_CALLS = {
    ("do_preadv", "__x64_sys_preadv"),
    ("do_preadv", "__x64_sys_preadv2"),
    ("do_readv", "__x64_sys_preadv2"),
    ("vfs_readv", "do_preadv"),
    ("do_pwritev", "__x64_sys_pwritev"),
    ("do_pwritev", "__x64_sys_pwritev2"),
    ("vfs_writev", "do_pwritev"),
    ("setattr_copy", "shmem_setattr"),
    # copy_file_range: checked, then copied by the kernel (mm/filemap.c's checks)
    ("vfs_copy_file_range", "__do_sys_copy_file_range"),
    ("generic_file_rw_checks", "vfs_copy_file_range"),  # generic_copy_file_checks (inline)
    ("generic_write_check_limits", "vfs_copy_file_range"),
    ("rw_verify_area", "vfs_copy_file_range"),
    ("generic_copy_file_range", "vfs_copy_file_range"),
    ("do_splice_direct", "generic_copy_file_range"),
}


def test_vectored_at_an_offset_and_setattr_calls(machine):
    calls = traced_calls(machine, {f for f, _ in VECTOR_AND_SETATTR_CALLS}, [
        (["fsop", "rw", "/tmp/fsop-bvec"], None),
        (["fsop", "stat", "/tmp/fsop-bsetattr"], None),
    ])
    assert VECTOR_AND_SETATTR_CALLS <= calls, (VECTOR_AND_SETATTR_CALLS - calls, calls)


# fs/locks.c, fs/file_table.c, fs/inode.c, security/security.c: flock(2)'s locks taken, given up,
# waited for (a child blocks on the parent's lock until it goes) and dropped at the last close
FLOCK_CALLS = {
    ("locks_init_lock", "__do_sys_flock"),       # flock_make_lock (inline)
    ("security_file_lock", "__do_sys_flock"),
    ("locks_lock_inode_wait", "__do_sys_flock"),  # locks_lock_file_wait (inline)
    ("locks_release_private", "__do_sys_flock"),
    ("flock_lock_inode", "locks_lock_inode_wait"),  # flock_lock_inode_wait (inline)
    ("locks_delete_block", "locks_lock_inode_wait"),
    ("locks_get_lock_context", "flock_lock_inode"),
    ("locks_alloc_lock", "flock_lock_inode"),
    ("flock_locks_conflict", "flock_lock_inode"),
    ("locks_copy_lock", "flock_lock_inode"),
    ("locks_copy_conflock", "locks_copy_lock"),
    ("locks_move_blocks", "flock_lock_inode"),
    ("locks_unlink_lock_ctx", "flock_lock_inode"),  # locks_delete_lock_ctx (inline)
    ("locks_dispose_list", "flock_lock_inode"),
    ("locks_free_lock", "locks_dispose_list"),
    ("locks_free_lock", "flock_lock_inode"),       # the new lock not needed
    ("locks_release_private", "locks_free_lock"),
    ("__locks_insert_block", "flock_lock_inode"),  # locks_insert_block (inline)
    ("__locks_wake_up_blocks", "__locks_insert_block"),
    ("__locks_wake_up_blocks", "locks_unlink_lock_ctx"),
    ("locks_remove_file", "__fput"),
    ("locks_remove_flock", "locks_remove_file"),
    ("locks_init_lock", "locks_remove_flock"),
    ("flock_lock_inode", "locks_remove_flock"),
    ("locks_check_ctx_file_list", "locks_remove_file"),
    ("locks_free_lock_context", "__destroy_inode"),
}

# fs/locks.c, fs/fcntl.c, fs/file.c: fcntl(2)'s record locks taken, split, refused, tested,
# waited for (a child waits for the parent's byte, whose wait for the child's is a deadlock)
# and dropped at a close of the file (POSIX) or its last close (OFD)
RECORD_LOCK_CALLS = {
    ("fcntl_setlk", "do_fcntl"),
    ("fcntl_getlk", "do_fcntl"),
    ("locks_alloc_lock", "fcntl_setlk"),
    ("flock64_to_posix_lock", "fcntl_setlk"),
    ("flock64_to_posix_lock", "fcntl_getlk"),
    ("security_file_lock", "fcntl_setlk"),       # do_lock_file_wait (inline)
    ("vfs_lock_file", "fcntl_setlk"),
    ("locks_delete_block", "fcntl_setlk"),
    ("posix_lock_file", "vfs_lock_file"),
    ("posix_lock_inode", "posix_lock_file"),
    ("locks_get_lock_context", "posix_lock_inode"),
    ("posix_locks_conflict", "posix_lock_inode"),
    ("__locks_insert_block", "posix_lock_inode"),
    ("locks_copy_lock", "posix_lock_inode"),
    ("vfs_test_lock", "fcntl_getlk"),
    ("posix_test_lock", "vfs_test_lock"),
    ("posix_locks_conflict", "posix_test_lock"),
    ("locks_copy_conflock", "posix_test_lock"),
    ("locks_translate_pid", "fcntl_getlk"),
    ("locks_remove_posix", "filp_close"),
    ("locks_remove_posix", "locks_remove_file"),
    ("vfs_lock_file", "locks_remove_posix"),
}


def test_record_lock_calls(machine):
    calls = traced_calls(machine, {f for f, _ in RECORD_LOCK_CALLS}, [(["fsop", "fd", "/tmp/fsop-brlock"], None)])
    assert RECORD_LOCK_CALLS <= calls, (RECORD_LOCK_CALLS - calls, calls)


# kernel/fork.c: unshare(2) of what is the caller's own already (nothing to copy); the file a
# task runs, for /proc/<pid>/exe and a child's address space
UNSHARE_CALLS = {
    ("ksys_unshare", "__x64_sys_unshare"),
    ("get_task_exe_file", "proc_exe_link"),
    ("get_mm_exe_file", "get_task_exe_file"),
    ("get_mm_exe_file", "dup_mmap"),              # dup_mm_exe_file (inline)
}


def test_flock_calls(machine):
    calls = traced_calls(machine, {f for f, _ in FLOCK_CALLS}, [
        (["fsop", "fd", "/tmp/fsop-bflock"], None),
        (["fsop", "pipe", "/tmp/fsop-bflockpipe"], None),   # pipes' inodes go at their last close
    ])
    assert FLOCK_CALLS <= calls, (FLOCK_CALLS - calls, calls)


def test_unshare_calls(machine):
    calls = traced_calls(machine, {f for f, _ in UNSHARE_CALLS} | {"copy_fs_struct", "dup_fd"},
                         [(["fsop", "fd", "/tmp/fsop-bunshare"], None)])
    assert UNSHARE_CALLS <= calls, calls
    # the fs information and the file table were the caller's own: no copy
    assert not {f for f, p in calls if p == "ksys_unshare"}, calls


# kernel/sys.c, kernel/sched/core.c, security/{security,commoncap}.c, fs/proc/array.c: a nice
# set (raised, lowered with CAP_SYS_NICE, of a process group) and the priority /proc shows
NICE_CALLS = {
    ("set_one_prio", "__do_sys_setpriority"),
    ("can_nice", "set_one_prio"),
    ("security_task_setnice", "set_one_prio"),
    ("cap_task_setnice", "security_task_setnice"),
    ("set_user_nice", "set_one_prio"),
    ("prio_changed_fair", "set_user_nice"),
    ("task_prio", "do_task_stat"),
}


def test_nice_calls(machine):
    calls = traced_calls(machine, {f for f, _ in NICE_CALLS}, [
        (["syscall", "141", "0", "0", "5"], b"0\n"),
        (["syscall", "141", "0", "0", "-5"], b"0\n"),
        (["syscall", "141", "1", "0", "3"], b"0\n"),
        (["cat", "/proc/self/stat"], None),
    ])
    assert NICE_CALLS <= calls, (NICE_CALLS - calls, calls)


# fs/sync.c, mm/filemap.c: a range's writeback started and waited for (sync_file_range), a
# file system's inodes written (syncfs), and fsync's range written through the same helper
SYNC_CALLS = {
    ("ksys_sync_file_range", "__x64_sys_sync_file_range"),
    ("sync_file_range", "ksys_sync_file_range"),
    ("file_fdatawait_range", "sync_file_range"),
    ("__filemap_fdatawrite_range", "sync_file_range"),
    ("filemap_fdatawrite_wbc", "__filemap_fdatawrite_range"),
    ("__filemap_fdatawait_range", "file_fdatawait_range"),
    ("sync_filesystem", "__x64_sys_syncfs"),
    ("sync_inodes_sb", "sync_filesystem"),
    ("__filemap_fdatawrite_range", "file_write_and_wait_range"),
    ("__filemap_fdatawait_range", "file_write_and_wait_range"),
}


def test_sync_range_and_syncfs_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SYNC_CALLS}, [
        (["fsop", "rw", "/tmp/fsop-bsync"], None),
        (["diskwriter", "/mnt/s", "4096", "fsync"], b"/mnt/s: 4096 bytes, fsync = 0\n"),
    ])
    assert SYNC_CALLS <= calls, (SYNC_CALLS - calls, calls)


# kernel/signal.c: a blocked signal waited for and taken without its handler, its siginfo out;
# fs/readdir.c: the old getdents
SIGTIMEDWAIT_CALLS = {
    ("do_sigtimedwait", "__x64_sys_rt_sigtimedwait"),
    ("dequeue_signal", "do_sigtimedwait"),
    ("schedule_hrtimeout_range", "do_sigtimedwait"),
    ("copy_siginfo_to_user", "__x64_sys_rt_sigtimedwait"),
    # a signal with the sender's siginfo: to a process, to a thread
    ("do_rt_sigqueueinfo", "__x64_sys_rt_sigqueueinfo"),
    ("kill_pid_info", "do_rt_sigqueueinfo"),
    ("do_rt_tgsigqueueinfo", "__x64_sys_rt_tgsigqueueinfo"),
    ("do_send_specific", "do_rt_tgsigqueueinfo"),
    # fs/readdir.c: the old getdents' records
    ("iterate_dir", "__x64_sys_getdents"),
    ("filldir", "dcache_readdir"),
}


def test_sigtimedwait_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SIGTIMEDWAIT_CALLS}, [
        (["fsop", "task", "/tmp/fsop-bsigwait"], None),
        (["fsop", "dir", "/tmp/fsop-bgetdents"], None),
    ])
    assert SIGTIMEDWAIT_CALLS <= calls, (SIGTIMEDWAIT_CALLS - calls, calls)


# kernel/sched/{core,fair}.c, kernel/time/time.c: a task's policy and slice asked for, the class's
# yield
SCHED_POLICY_CALLS = {
    ("security_task_getscheduler", "__x64_sys_sched_getscheduler"),
    ("security_task_getscheduler", "__x64_sys_sched_getparam"),
    ("security_task_getscheduler", "sched_getaffinity"),
    ("sched_rr_get_interval", "__x64_sys_sched_rr_get_interval"),
    ("security_task_getscheduler", "sched_rr_get_interval"),
    ("get_rr_interval_fair", "sched_rr_get_interval"),
    ("jiffies_to_timespec64", "sched_rr_get_interval"),
    ("put_timespec64", "__x64_sys_sched_rr_get_interval"),
    ("yield_task_fair", "do_sched_yield"),
}


def test_sched_policy_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SCHED_POLICY_CALLS}, [
        (["fsop", "task", "/tmp/fsop-bsched"], None),
    ])
    assert SCHED_POLICY_CALLS <= calls, (SCHED_POLICY_CALLS - calls, calls)


# block/{ioprio,blk-ioc}.c, kernel/fork.c, kernel/exit.c, security/: an I/O priority set (the
# task's I/O context made), read back, inherited by a child, and the context gone at exit
IOPRIO_CALLS = {
    ("ioprio_check_cap", "__do_sys_ioprio_set"),
    ("set_task_ioprio", "__do_sys_ioprio_set"),
    ("security_task_setioprio", "set_task_ioprio"),
    ("cap_task_setioprio", "security_task_setioprio"),
    ("alloc_io_context", "set_task_ioprio"),
    ("security_task_getioprio", "__do_sys_ioprio_get"),    # get_task_raw_ioprio (inline)
    ("alloc_io_context", "copy_process"),                 # copy_io (inline)
    ("exit_io_context", "do_exit"),
    ("put_io_context", "exit_io_context"),
}
# kernel/capability.c, security/: capget's version checked, a task's sets from the LSM
CAPGET_CALLS = {
    ("cap_validate_magic", "__do_sys_capget"),
    ("security_capget", "__do_sys_capget"),           # cap_get_target_pid (inline)
    ("cap_capget", "security_capget"),
}


def test_ioprio_calls(machine):
    calls = traced_calls(machine, {f for f, _ in IOPRIO_CALLS} | {"__get_task_ioprio"}, [
        (["fsop", "task", "/tmp/fsop-bioprio"], None),
        (["syscall", "252", "2", "0"], None),               # ioprio_get(PGRP, 0): the best of them
    ])
    assert IOPRIO_CALLS <= calls, (IOPRIO_CALLS - calls, calls)
    assert {p for f, p in calls if f == "__get_task_ioprio"} == {"__do_sys_ioprio_get"}


def test_capget_calls(machine):
    calls = traced_calls(machine, {f for f, _ in CAPGET_CALLS}, [(["fsop", "cap", "/tmp/fsop-bcapget"], None)])
    assert CAPGET_CALLS <= calls, (CAPGET_CALLS - calls, calls)


# fs/d_path.c, fs/namespace.c, mm/readahead.c (fs/open.c): a path's name copied without
# faulting, a mount reference dropped, a file's readahead state at open
VFS_HELPER_CALLS = {
    ("prepend_copy", "prepend"),
    ("copy_from_kernel_nofault", "prepend_copy"),
    ("mntput_no_expire", "mntput"),
    ("file_ra_state_init", "do_dentry_open"),
}


def test_path_name_mount_and_readahead_calls(machine):
    calls = traced_calls(machine, {f for f, _ in VFS_HELPER_CALLS}, [
        (["fsop", "dir", "/tmp/fsop-bpath"], None),          # getcwd
        (["cat", "/proc/self/maps"], None),
    ])
    assert VFS_HELPER_CALLS <= calls, VFS_HELPER_CALLS - calls


# kernel/futex/core.c, waitwake.c: waiters hashed by key, queued and woken
FUTEX_CALLS = {
    ("futex_q_lock", "futex_wait_setup"),
    ("futex_hash", "futex_q_lock"),
    ("futex_get_value_locked", "futex_wait_setup"),
    ("__futex_queue", "futex_wait_queue"),
    ("futex_q_unlock", "futex_wait_queue"),      # futex_queue (inline)
    ("futex_unqueue", "futex_wait"),
    ("futex_setup_timer", "futex_wait"),
    ("futex_hash", "futex_wake"),
    ("futex_wake_mark", "futex_wake"),
    ("__futex_unqueue", "futex_wake_mark"),
}


def test_futex_hash_and_queue_calls(machine):
    calls = traced_calls(machine, {f for f, _ in FUTEX_CALLS}, [
        (["fsop", "task", "/tmp/fsop-bfutex"], None),
        (["progtest", "threads"], None),
    ])
    assert FUTEX_CALLS <= calls, FUTEX_CALLS - calls


# fs/exec.c: an exec's state made and freed, the kernel's strings copied onto the new stack
EXEC_CALLS = {
    ("alloc_bprm", "do_execveat_common"),
    ("free_bprm", "do_execveat_common"),
    ("copy_string_kernel", "do_execveat_common"),    # the file name
    ("copy_strings_kernel", "do_execveat_common"),   # kernel_execve's vectors
    ("copy_string_kernel", "copy_strings_kernel"),
}


def test_exec_bprm_calls(machine):
    calls = traced_calls(machine, {f for f, _ in EXEC_CALLS}, [
        (["progtest", "spawn"], None),
        (["cat", "/proc/self/cmdline"], b"cat\0/proc/self/cmdline\0"),
    ])
    assert EXEC_CALLS <= calls, EXEC_CALLS - calls


# block/bio.c: a bio's allocation, its pages, its end
BIO_CALLS = {
    ("bio_alloc_bioset", "simplefs_writepage"),     # bio_alloc (inline)
    ("bio_init", "bio_alloc_bioset"),
    ("__bio_try_merge_page", "bio_add_page"),
    ("__bio_add_page", "bio_add_page"),
    ("bio_free", "bio_put"),
}


def test_bio_calls(machine):
    calls = traced_calls(machine, {f for f, _ in BIO_CALLS}, [
        (["diskwriter", "/mnt/b", "8192", "fsync"], b"/mnt/b: 8192 bytes, fsync = 0\n"),
        (["cat", "/mnt/b"], None),
    ])
    assert BIO_CALLS <= calls, BIO_CALLS - calls


# kernel/sys.c, fs/statfs.c, kernel/printk/printk.c, kernel/events/core.c: the LSM hooks 6.1
# asks on these paths (no module here implements them: each answers its default)
LSM_CALLS = {
    ("security_task_setpgid", "__do_sys_setpgid"),
    ("security_task_getpgid", "do_getpgid"),     # another process's group
    ("security_task_prlimit", "__do_sys_prlimit64"),   # another process's limits (check_prlimit_permission, inline)
    ("security_sb_statfs", "statfs_by_dentry"),
    ("security_perf_event_open", "__do_sys_perf_event_open"),
    ("security_perf_event_read", "perf_read"),
    ("security_perf_event_write", "perf_ioctl"),
}
LSM_LOG_CALLS = {("security_syslog", "check_syslog_permissions")}


def test_lsm_hooks_of_task_statfs_and_perf_calls(machine):
    funcs = {f for f, _ in LSM_CALLS}
    getuid = event_ids(machine)["sys_enter_getuid"]
    calls = traced_calls(machine, funcs, [
        (["fsop", "task", "/tmp/fsop-blsm"], None),
        (["fsop", "stat", "/tmp/fsop-blsm2"], None),
        (["perfev", "ioctl", str(getuid), "4"], None),
    ])
    assert LSM_CALLS <= calls, LSM_CALLS - calls


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_syslog_asks_the_lsm(machine):
    calls = traced_calls(machine, {f for f, _ in LSM_LOG_CALLS}, [([BUSYBOX, "sh", "-c", "dmesg > /dev/null"], None)])
    assert LSM_LOG_CALLS <= calls, LSM_LOG_CALLS - calls


# kernel/bpf/syscall.c, security/security.c: bpf()'s LSM hooks and the fds of its objects
BPF_LSM_CALLS = {
    ("security_bpf", "__sys_bpf"),
    ("security_bpf_map_alloc", "map_create"),
    ("bpf_map_new_fd", "map_create"),
    ("security_bpf_map", "bpf_map_new_fd"),
    ("security_bpf_prog_alloc", "bpf_prog_load"),
    ("bpf_prog_new_fd", "bpf_prog_load"),
    ("security_bpf_prog", "bpf_prog_new_fd"),
}


def test_bpf_lsm_and_fd_calls(machine):
    from bpf_cases import CASES
    calls = traced_calls(machine, {f for f, _ in BPF_LSM_CALLS}, [
        (["bpftest", *CASES["hash_crud"]], None),
        (["bpftest", *CASES["load_ok"]], None),
    ])
    assert BPF_LSM_CALLS <= calls, BPF_LSM_CALLS - calls


# net/ipv4/tcp_input.c, inet_connection_sock.c, af_inet.c (sock_graft): a connection's LSM hooks
INET_LSM_CALLS = {
    ("security_inet_conn_request", "tcp_conn_request"),
    ("security_inet_csk_clone", "inet_csk_clone_lock"),
    ("security_inet_conn_established", "tcp_finish_connect"),
    ("security_sock_graft", "inet_accept"),     # sock_graft (inline)
}


def test_inet_connection_lsm_calls(machine):
    calls = traced_calls(machine, {f for f, _ in INET_LSM_CALLS}, [(["nettest", "tcp"], None)])
    assert INET_LSM_CALLS <= calls, INET_LSM_CALLS - calls


# kernel/exec_domain.c, kernel/sys.c, arch/x86/kernel/process_64.c, fs/proc/base.c: personality(2),
# what uname and exec make of it, and the process's file of it
PERSONALITY_CALLS = {
    ("__x64_sys_personality", "do_syscall_64"),
    ("override_release", "__do_sys_newuname"),
    ("set_personality_64bit", "load_elf_binary"),
    ("proc_pid_personality", "proc_single_show"),
}


def test_personality_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PERSONALITY_CALLS}, [
        (["fsop", "persona", "/tmp/fsop-persona"], None),
    ])
    assert PERSONALITY_CALLS <= calls, PERSONALITY_CALLS - calls


# fs/proc/base.c, kernel/sched/debug.c: a process's scheduler files
SCHED_PROC_CALLS = {
    ("sched_open", "do_dentry_open"),
    ("sched_show", "seq_read_iter"),
    ("proc_sched_show_task", "sched_show"),
    ("proc_pid_schedstat", "proc_single_show"),
}


def test_proc_sched_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SCHED_PROC_CALLS}, [
        (["cat", "/proc/self/sched", "/proc/1/schedstat"], None),
    ])
    assert SCHED_PROC_CALLS <= calls, SCHED_PROC_CALLS - calls


# fs/proc/base.c, mm/memory.c, mm/gup.c: /proc/PID/mem, another mm's pages by address (FOLL_FORCE
# faults them in, a write breaking COW)
PROC_MEM_CALLS = {
    ("mem_open", "do_dentry_open"),
    ("mem_read", "vfs_read"),
    ("mem_write", "vfs_write"),
    ("mem_rw", "mem_read"),
    ("mem_rw", "mem_write"),
    ("mem_lseek", "vfs_llseek"),
    ("mem_release", "__fput"),
    ("access_remote_vm", "mem_rw"),
    ("__access_remote_vm", "access_remote_vm"),
    ("get_user_pages_remote", "__access_remote_vm"),
    ("__get_user_pages_remote", "get_user_pages_remote"),
    ("__get_user_pages", "__get_user_pages_remote"),
    ("check_vma_flags", "__get_user_pages"),
    ("follow_page_mask", "__get_user_pages"),
    ("follow_page_pte", "follow_page_mask"),
    ("try_grab_page", "follow_page_pte"),
    ("handle_mm_fault", "__get_user_pages"),       # faultin_page (inline)
    ("access_remote_vm", "proc_pid_cmdline_show"),
    ("mark_page_accessed", "follow_page_pte"),     # FOLL_TOUCH
}
# fs/exec.c, fs/binfmt_elf.c, mm/mmap.c, arch/x86/kernel/{process,fpu/core}.c: the new stack's
# pages through get_user_pages_remote, counted in the old mm until the exec is done; a PIE's room
# unmapped past its first segment; the old program's FPU state reset
EXEC_STACK_CALLS = {
    ("get_user_pages_remote", "get_arg_page"),
    ("acct_arg_size", "get_arg_page"),
    ("acct_arg_size", "begin_new_exec"),
    ("vm_munmap", "elf_map"),
    ("__vm_munmap", "vm_munmap"),
    ("flush_thread", "begin_new_exec"),             # the old program's FPU state dropped
    ("fpu_flush_thread", "flush_thread"),
}


def test_proc_mem_calls(machine):
    calls = traced_calls(machine, {f for f, _ in PROC_MEM_CALLS}, [
        (["fsop", "procmem", "/tmp/fsop-procmem"], None),
        (["cat", "/proc/self/cmdline"], b"cat\0/proc/self/cmdline\0"),
    ])
    assert PROC_MEM_CALLS <= calls, PROC_MEM_CALLS - calls


def test_exec_stack_calls(machine):
    calls = traced_calls(machine, {f for f, _ in EXEC_STACK_CALLS}, [
        (["progtest-pie", "hello"], None),
    ])
    assert EXEC_STACK_CALLS <= calls, (EXEC_STACK_CALLS - calls, sorted(calls))


# fs/attr.c: a file system's ->setattr asks setattr_prepare() (a mode or given times only by the
# owner; the new size within the file system's limit) before it makes the change
SETATTR_CALLS = {
    ("setattr_prepare", "shmem_setattr"),
    ("inode_newsize_ok", "setattr_prepare"),
}


def test_setattr_prepare_calls(machine):
    calls = traced_calls(machine, {f for f, _ in SETATTR_CALLS}, [
        (["fsop", "stat", "/tmp/fsop-setattr-stat"], None),
        (["fsop", "rw", "/tmp/fsop-setattr-rw"], None),
    ])
    assert SETATTR_CALLS <= calls, SETATTR_CALLS - calls
