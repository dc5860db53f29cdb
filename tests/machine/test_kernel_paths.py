"""The deeper chains of Linux 6.1 that the emulated kernel runs: while a program takes a path,
the function tracer sees each function of the family called by its 6.1 caller (function,
parent), so a name in available_filter_functions is code that runs where 6.1's does."""
import struct

import pytest

from tests.rb_page_reference import decode_page
from test_progs import BUSYBOX, SIGSEGV_STATUS, _static_busybox

TRACE_FN = 1


@pytest.fixture
def machine(make_machine):
    return make_machine(traced=True, cpus=2, seed=3)


def run(machine, argv, expect=None, status=0):
    out = []
    proc = machine.spawn(argv, out.append)
    assert proc.wait(60) == status, (argv, b"".join(out))
    if expect is not None:
        assert b"".join(out) == expect
    return b"".join(out)


def traced_calls(machine, funcs, programs) -> set[tuple[str, str]]:
    """(function, parent) of every call to funcs, by any task or interrupt, while the
    programs run one after the other (argv, its output or None, its status if not 0); the
    tracing off again after."""
    assert set(funcs) <= set(machine.image.mcount_sites), set(funcs) - set(machine.image.mcount_sites)
    calls: set[tuple[str, str]] = set()

    def drain():
        # after each program: a CPU's ring holds some 9,000 events, which a long list of
        # programs can fill (the events of the last ones then lost)
        for page in machine.tracing.drain(0):
            for ev in decode_page(page.data).events:
                if struct.unpack_from("<H", ev.payload)[0] == TRACE_FN:
                    ip, parent = struct.unpack_from("<QQ", ev.payload, 8)
                    calls.add(tuple(machine.image.symbolize(a)[0].name for a in (ip, parent)))
    machine.sites.set_function(0, frozenset(funcs))
    try:
        for program in programs:
            run(machine, *program)
            drain()
    finally:
        machine.sites.set_function(0, None)
    drain()
    return calls


# (function, its caller) as in 6.1's mm/filemap.c, mm/truncate.c, mm/page-writeback.c,
# mm/swap.c, fs/inode.c, fs/read_write.c, fs/buffer.c
PAGE_CACHE_WRITE = {
    ("generic_write_checks", "generic_file_write_iter"),
    ("generic_write_check_limits", "generic_write_checks_count"),
    ("__generic_file_write_iter", "generic_file_write_iter"),
    ("generic_perform_write", "__generic_file_write_iter"),
    ("file_update_time", "__generic_file_write_iter"),
    ("inode_update_time", "file_update_time"),
    ("generic_update_time", "inode_update_time"),
    ("filemap_alloc_folio", "__filemap_get_folio"),
    ("folio_add_lru", "filemap_add_folio"),
    # fs/buffer.c, as ext2's write_end (generic_write_end) dirties a page
    ("block_write_end", "generic_write_end"),
    ("__block_commit_write.constprop.0.isra.0", "block_write_end"),
    ("mark_buffer_dirty", "__block_commit_write.constprop.0.isra.0"),
    ("__folio_mark_dirty", "mark_buffer_dirty"),
    ("__mark_inode_dirty", "mark_buffer_dirty"),
    ("folio_unlock", "generic_write_end"),   # the page write_begin locked (FGP_LOCK)
    ("__folio_end_writeback", "folio_end_writeback"),
    # fsync's range written and waited for (mm/filemap.c: file_write_and_wait_range)
    ("__filemap_fdatawrite_range", "file_write_and_wait_range"),
    ("__filemap_fdatawait_range", "file_write_and_wait_range"),
}
PAGE_CACHE_TRUNCATE = {
    ("truncate_inode_pages_range", "truncate_inode_pages"),
    ("truncate_inode_folio", "truncate_inode_pages_range"),
    ("truncate_cleanup_folio", "truncate_inode_folio"),
    ("folio_account_cleaned", "truncate_cleanup_folio"),
    ("filemap_remove_folio", "truncate_inode_folio"),
    ("__filemap_remove_folio", "filemap_remove_folio"),
    ("filemap_unaccount_folio", "__filemap_remove_folio"),
    ("filemap_free_folio", "filemap_remove_folio"),
    ("__folio_put", "truncate_inode_pages_range"),  # its reference the last (the cache dropped its)
}
PAGE_CACHE_READ = {
    ("filemap_get_read_batch", "filemap_get_pages"),
    ("filemap_alloc_folio", "filemap_get_pages"),     # filemap_create_folio is inline
    ("filemap_read_folio", "filemap_get_pages"),
    ("folio_unlock", "filemap_get_pages"),
}


def test_page_cache_write_fsync_truncate_and_read_of_a_hole(machine):
    funcs = {f for pairs in (PAGE_CACHE_WRITE, PAGE_CACHE_TRUNCATE, PAGE_CACHE_READ) for f, _ in pairs}
    funcs |= {"folio_wait_bit", "folio_wait_writeback", "folio_end_writeback"}
    calls = traced_calls(machine, funcs, [
        (["diskwriter", "/mnt/f", "12288", "fsync"], b"/mnt/f: 12288 bytes, fsync = 0\n"),
        # dirty pages truncated by the rewrite's O_TRUNC: their dirtying cancelled
        (["diskwriter", "/mnt/f", "8192", "none"], b"/mnt/f: 8192 bytes, none = 0\n"),
        (["diskwriter", "/mnt/f", "4096", "none"], b"/mnt/f: 4096 bytes, none = 0\n"),
        # a write a tick after the open: its times change (file_update_time: within the tick
        # of the open's, the coarse clock's, they stay as they are)
        (["diskwriter", "/mnt/f", "4096", "later"], b"/mnt/f: 4096 bytes, later = 0\n"),
        # two pages of hole, then a page of data: the hole's pages are read in by cat
        (["diskwriter", "/mnt/s", "8192", "sparse"], b"/mnt/s: 8192 bytes, sparse = 0\n"),
        (["cat", "/mnt/s"], b"\0" * 8192 + b"x" * 4096),
    ])
    assert PAGE_CACHE_WRITE <= calls, PAGE_CACHE_WRITE - calls
    assert PAGE_CACHE_TRUNCATE <= calls, PAGE_CACHE_TRUNCATE - calls
    assert PAGE_CACHE_READ <= calls, PAGE_CACHE_READ - calls
    # fsync waited for a page whose write was still on the disk
    assert ("folio_wait_bit", "folio_wait_writeback") in calls
    # every page dirtied was cleaned again, by its writeback or its truncation, but the last
    # two files' (NR_FILE_DIRTY: once each)
    dirty = struct.unpack("<q", machine.read_memory(machine.image.addr("global_dirty_pages"), 8))[0]
    assert dirty == 2


# mm/memory.c, mm/rmap.c, mm/swap.c, mm/mempolicy.c, mm/mmap.c: page faults (anonymous, a
# program's file-backed text read, copy-on-write after fork),
# their page tables, and munmap/madvise's unmapping
FAULTS = {
    ("__pud_alloc", "__handle_mm_fault"),
    ("__pmd_alloc", "__handle_mm_fault"),
    ("__pte_alloc", "__handle_mm_fault"),       # do_anonymous_page's pte_alloc (inline)
    ("pte_alloc_one", "__pte_alloc"),
    ("pmd_install", "__pte_alloc"),
    ("vma_alloc_folio", "__handle_mm_fault"),   # do_anonymous_page
    ("vma_alloc_folio", "wp_page_copy"),
    ("page_add_new_anon_rmap", "__handle_mm_fault"),
    ("lru_cache_add_inactive_or_unevictable", "__handle_mm_fault"),
    ("finish_fault", "do_fault"),               # do_read_fault and do_cow_fault
    ("page_add_new_anon_rmap", "wp_page_copy"),
    ("folio_add_lru", "lru_cache_add_inactive_or_unevictable"),
    ("do_set_pte", "finish_fault"),
}
UNMAP = {
    ("unmap_vmas", "unmap_region"),
    ("unmap_single_vma", "unmap_vmas"),
    ("unmap_page_range", "unmap_single_vma"),
    ("unmap_single_vma", "zap_page_range"),     # madvise(MADV_DONTNEED)
}


def test_page_faults_and_unmapping(machine):
    funcs = {f for pairs in (FAULTS, UNMAP) for f, _ in pairs}
    calls = traced_calls(machine, funcs, [
        (["fsop", "task", "/tmp/fsop-task"], None),
        (["fsop", "mm", "/tmp/fsop-mm"], None),
    ])
    assert FAULTS <= calls, FAULTS - calls
    assert UNMAP <= calls, UNMAP - calls


# a private file mapping's first touch a write (a static program's .data, file-backed: the
# kernel's own programs have none), copied from the file's page into a new anonymous one
COW_FAULT = {
    ("vma_alloc_folio", "do_fault"),            # do_cow_fault (inline)
    ("finish_fault", "do_fault"),
    ("page_add_new_anon_rmap", "finish_fault"),
    ("lru_cache_add_inactive_or_unevictable", "finish_fault"),
}



@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_a_private_file_mapping_written_first_is_copied(machine):
    calls = traced_calls(machine, {f for f, _ in COW_FAULT}, [([BUSYBOX, "true"], b"")])
    assert COW_FAULT <= calls, COW_FAULT - calls


# kernel/capability.c, security/security.c, security/commoncap.c: capable() and its forms
# ask the capability module (capable.bt's kprobe:cap_capable) where 6.1's callers ask
CAPABILITIES = {
    ("cap_capable", "security_capable"),
    ("security_capable", "ns_capable"),
    ("security_capable", "ns_capable_setid"),
    ("ns_capable", "capable"),
    ("ns_capable", "capable_wrt_inode_uidgid"),
    ("capable", "vfs_mknod"),                          # mknod of a character device: CAP_MKNOD
    ("capable_wrt_inode_uidgid", "generic_permission"),  # a directory not writable by fsuid 1000
    # (6.1 tail-calls it: real-tracefs shows it under generic_permission and setattr_prepare)
    ("privileged_wrt_inode_uidgid", "capable_wrt_inode_uidgid"),
    ("ns_capable_setid", "__sys_setresuid"),
    ("ns_capable_setid", "__sys_setuid"),
    ("ns_capable_setid", "__sys_setresgid"),
    ("ns_capable_setid", "__sys_setfsuid"),
    ("vfs_create", "do_mknodat"),                      # mknod of a regular file
}


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_capability_checks_and_mknod(machine):
    calls = traced_calls(machine, {f for f, _ in CAPABILITIES}, [
        (["fsop", "stat", "/tmp/fsop-stat"], None),
        (["fsop", "task", "/tmp/fsop-task"], None),
        # root reads its file of mode 000: CAP_DAC_READ_SEARCH, over an inode its ids map
        ([BUSYBOX, "sh", "-c", "echo x > /tmp/cap-p; chmod 000 /tmp/cap-p; cat /tmp/cap-p"], b"x\n"),
    ])
    assert CAPABILITIES <= calls, CAPABILITIES - calls


# kernel/sched/core.c and fair.c: wakeups, sleeps, picks, ticks and a task's first wakeup
SCHED = {
    ("update_rq_clock", "scheduler_tick"),
    ("task_tick_fair", "scheduler_tick"),
    ("update_curr", "task_tick_fair"),
    ("select_task_rq_fair", "try_to_wake_up"),
    ("ttwu_do_activate", "try_to_wake_up"),
    ("activate_task", "ttwu_do_activate"),
    ("enqueue_task_fair", "activate_task"),
    ("ttwu_do_wakeup", "ttwu_do_activate"),
    ("check_preempt_curr", "ttwu_do_wakeup"),
    ("activate_task", "wake_up_new_task"),
    ("check_preempt_curr", "wake_up_new_task"),
    ("dequeue_task_fair", "deactivate_task"),
    ("put_prev_task_fair", "pick_next_task_fair"),
    ("set_next_entity", "pick_next_task_fair"),
}


def test_scheduler_wakeups_sleeps_picks_and_ticks(machine):
    """(__schedule is notrace, as 6.1's: its calls to deactivate_task, pick_next_task_fair and
    update_rq_clock show no parent here, so only that they ran is asked of them.)"""
    funcs = {f for f, _ in SCHED} | {"deactivate_task", "pick_next_task_fair"}
    calls = traced_calls(machine, funcs, [
        (["fsop", "task", "/tmp/fsop-task"], None),
        (["sleep", "0.1"], b""),
        (["getuid-loop", "30000"], None),
    ])
    assert SCHED <= calls, SCHED - calls
    assert {f for f, _ in calls} >= {"deactivate_task", "pick_next_task_fair"}


# functions the model had with 6.1's names but inlined (or gcc's), now out of line as 6.1's:
# timers, hrtimers and the tick, RCU, workqueues, the allocators, vmstat, mmap, exec, signals
OUT_OF_LINE = {
    ("__hrtimer_run_queues", "hrtimer_interrupt"),
    ("__remove_hrtimer", "__hrtimer_run_queues"),
    ("hrtimer_sleeper_start_expires", "do_nanosleep"),
    ("get_itimerval", "__x64_sys_setitimer"),
    ("calc_wheel_index", "__mod_timer"),
    ("enqueue_timer", "__mod_timer"),
    ("call_timer_fn", "__run_timers"),          # expire_timers (inline)
    ("__next_timer_interrupt", "__run_timers"),
    ("update_process_times", "tick_sched_handle"),
    ("tick_sched_handle", "tick_sched_timer"),
    ("tick_sched_do_timer", "tick_sched_timer"),
    ("account_process_tick", "update_process_times"),
    ("tick_nohz_next_event", "tick_nohz_idle_stop_tick"),
    ("invoke_rcu_core", "rcu_sched_clock_irq"),
    ("rcu_core", "rcu_core_si"),
    ("rcu_do_batch", "rcu_core"),
    ("rcu_gp_init", "rcu_gp_kthread"),
    ("rcu_gp_cleanup", "rcu_gp_kthread"),
    ("insert_work", "__queue_work"),
    ("__queue_delayed_work", "queue_delayed_work_on"),
    ("process_one_work", "worker_thread"),
    ("pwq_dec_nr_in_flight", "process_one_work"),
    ("get_page_from_freelist", "__alloc_pages"),
    ("kmalloc_slab", "__kmalloc"),
    ("refresh_cpu_vm_stats", "vmstat_update"),
    ("need_update", "vmstat_shepherd"),
    ("find_vma_intersection", "do_mmap"),
    ("vm_stat_account", "__mmap_region"),
    ("vma_set_page_prot", "__mmap_region"),
    ("start_thread", "load_elf_binary"),
    ("arch_pick_mmap_layout", "setup_new_exec"),
    ("do_task_dead", "do_exit"),
}


def test_functions_now_out_of_line_run_where_6_1_calls_them(machine):
    calls = traced_calls(machine, {f for f, _ in OUT_OF_LINE}, [
        (["fsop", "task", "/tmp/fsop-task"], None),
        (["fsop", "mm", "/tmp/fsop-mm"], None),
        (["sleep", "1.5"], b""),
    ])
    assert OUT_OF_LINE <= calls, OUT_OF_LINE - calls


# kernel/bpf: the syscall's commands, the hash map's elements, the verifier's steps
BPF = {
    ("map_create", "__sys_bpf"),
    ("bpf_prog_load", "__sys_bpf"),
    ("lookup_elem_raw", "__htab_map_lookup_elem"),
    ("lookup_elem_raw", "htab_map_delete_elem"),
    ("free_htab_elem", "htab_map_delete_elem"),
    ("init_reg_state", "do_check_common"),   # (init_func_state inlined, as 6.1's)
    ("do_check_common", "bpf_check"),
    ("mark_reg_known_zero", "init_reg_state"),
    ("mark_reg_not_init", "init_reg_state"),
    ("__mark_reg_unknown", "mark_reg_unknown"),
    ("check_cfg", "bpf_check"),
    ("do_misc_fixups", "bpf_check"),
    ("push_stack", "check_cond_jmp_op"),
    ("check_map_access", "check_mem_access"),
    ("check_ptr_alignment", "check_mem_access"),
}
BPF_RUN = {"alloc_htab_elem", "bpf_map_get", "bpf_map_value_size", "bpf_prog_get_info_by_fd", "check_atomic",
           "check_helper_call", "check_mem_size_reg", "check_stack_range_initialized", "pop_stack",
           "adjust_reg_min_max_vals", "bpf_opcode_in_insntable", "__mark_reg_known"}


def test_bpf_commands_maps_and_the_verifier(machine):
    from bpf_cases import CASES
    from tracefs_sim.machine.hostif import HOST_REQ_ARGV
    # (a case whose arguments a spawn request cannot carry runs in test_bpf, part of it on
    # bpftest's stdin: its paths are the others')
    argvs = [["bpftest", *CASES[name]] for name in sorted(CASES)]
    calls = traced_calls(machine, {f for f, _ in BPF} | BPF_RUN,
                         [(argv, None) for argv in argvs if sum(len(a) + 1 for a in argv) <= HOST_REQ_ARGV])
    assert BPF <= calls, BPF - calls
    assert BPF_RUN <= {f for f, _ in calls}, BPF_RUN - {f for f, _ in calls}


# fs/ and block/: the helpers the VFS had as notrace, traceable as in 6.1
VFS = {
    ("__blk_mq_get_tag", "blk_mq_get_tag"),
    ("__d_drop", "d_delete"),
    ("dentry_free", "__dentry_kill"),
    ("do_dup2", "ksys_dup3"),
    ("free_fs_struct", "exit_fs"),
    ("get_next_ino", "shmem_get_inode"),
    ("lookup_one_qstr_excl", "filename_create"),
    ("lookup_one_qstr_excl", "do_renameat2"),
    ("__filename_parentat", "filename_create"),   # filename_parentat (inline)
    ("path_parentat", "__filename_parentat"),
    ("may_create", "vfs_mkdir"),
    ("may_create", "vfs_create"),
    ("may_delete", "vfs_unlink"),
    ("may_delete", "vfs_rmdir"),
    ("prepend", "prepend_path"),
    ("set_root", "nd_jump_root"),                # path_init → nd_jump_root for "/..."
    ("vfs_setpos", "generic_file_llseek_size"),
    ("shmem_truncate_range", "shmem_setattr"),
    ("anon_pipe_buf_release", "pipe_read"),
}
VFS_RUN = {"__d_rehash", "__dentry_kill", "alloc_fdtable", "full_name_hash"}


def test_vfs_helpers(machine):
    fsop = [(["fsop", family, f"/tmp/fsop-{family}"], None) for family in ("open", "dir", "link", "fd", "pipe", "rw", "stat")]
    calls = traced_calls(machine, {f for f, _ in VFS} | VFS_RUN,
                         fsop + [(["diskwriter", "/mnt/v", "8192", "fsync"], b"/mnt/v: 8192 bytes, fsync = 0\n")])
    assert VFS <= calls, VFS - calls
    assert VFS_RUN <= {f for f, _ in calls}, VFS_RUN - {f for f, _ in calls}


# kernel/signal.c: kill, tgkill and a fault's signal to the thread that takes it; delivery
SIGNALS = {
    ("kill_pid_info", "kill_something_info"),     # kill_proc_info (inline)
    ("send_signal_locked", "do_send_sig_info"),
    ("__send_signal_locked", "send_signal_locked"),
    ("prepare_signal", "__send_signal_locked"),
    ("complete_signal", "__send_signal_locked"),
    ("signal_wake_up_state", "complete_signal"),  # signal_wake_up (inline)
    ("wake_up_state", "signal_wake_up_state"),
    ("do_send_specific", "do_tkill"),
    ("do_send_sig_info", "do_send_specific"),
    ("dequeue_signal", "get_signal"),
    ("force_sig_info_to_task", "force_sig_info"),  # force_sig_fault -> force_sig_fault_to_task
    ("send_signal_locked", "force_sig_info_to_task"),
}


def test_signals_sent_and_taken(machine):
    calls = traced_calls(machine, {f for f, _ in SIGNALS} | {"kill_something_info"}, [
        (["fsop", "task", "/tmp/fsop-task"], None),
        (["progtest", "signal"], b"handler saw signal 10\n"),   # raise(): tgkill
        (["progtest", "segv"], None, SIGSEGV_STATUS),
        (["syscall", "234", "2", "2", "17"], b"0\n"),   # tgkill(2, 2, SIGCHLD): kthreadd takes none
    ])
    assert SIGNALS <= calls, SIGNALS - calls
    assert any(f == "kill_something_info" for f, _ in calls)


# sendmsg/recvmsg's message once in the kernel; bottom halves enabled again (net/, softirq.c);
# the page cache's LRU activation and writeback start; a large kmalloc freed; migration
MISC = {
    ("alloc_pages", "allocate_slab"),             # alloc_slab_page (inline)
    ("fs_umode_to_dtype", "dcache_readdir"),
    ("____sys_sendmsg", "___sys_sendmsg"),
    ("____sys_recvmsg", "___sys_recvmsg"),
    ("folio_activate", "folio_mark_accessed"),
}
MISC |= {
    ("__wake_up_common_lock", "__wake_up"),
    ("__wake_up_common", "__wake_up_common_lock"),
    ("autoremove_wake_function", "__wake_up_common"),    # a wait_event() sleeper's entry
    ("default_wake_function", "autoremove_wake_function"),
}
MISC.add(("timespec64_add_safe", "poll_select_set_timeout"))
MISC_RUN = {"__local_bh_enable_ip", "__folio_start_writeback", "__init_waitqueue_head"}


def test_messages_bottom_halves_and_page_states(machine):
    calls = traced_calls(machine, {f for f, _ in MISC} | MISC_RUN, [
        (["nettest", "udp"], None),
        (["nettest", "tcp"], None),
        (["fsop", "ls", "/dev"], None),
        (["polltest", "select"], None),
        (["diskwriter", "/mnt/m", "4096", "fsync"], b"/mnt/m: 4096 bytes, fsync = 0\n"),
        (["cat", "/mnt/m"], b"x" * 4096),
        (["cat", "/mnt/m"], b"x" * 4096),
    ])
    assert MISC <= calls, MISC - calls
    assert MISC_RUN <= {f for f, _ in calls}, MISC_RUN - {f for f, _ in calls}


def test_a_perf_filter_string_is_copied_by_strndup_user(machine):
    """PERF_EVENT_IOC_SET_FILTER's string (mm/util.c's strndup_user; a bad pointer is EFAULT)"""
    from guest_events import number_events
    ids = number_events(machine)
    calls = traced_calls(machine, {"strndup_user"}, [
        (["perfev", "filter", str(ids["sys_enter"]), str(ids["sched_switch"]), "5"], None),
    ])
    assert ("strndup_user", "_perf_ioctl") in calls         # perf_event_set_filter (inline)


# security/security.c: the LSM hooks, each called by the function that calls it in 6.1 (fs/namei.c,
# fs/open.c, fs/file_table.c, fs/inode.c, fs/dcache.c, fs/stat.c, fs/ioctl.c, fs/fcntl.c,
# mm/mmap.c, mm/util.c, fs/exec.c, kernel/fork.c, kernel/signal.c, net/socket.c, net/core/sock.c);
# the capability module's behind the hooks it implements
LSM = {
    ("security_file_alloc", "__alloc_file"),
    ("security_file_free", "__fput"),                          # file_free (inline)
    ("security_file_open", "do_dentry_open"),
    ("security_file_permission", "rw_verify_area"),
    ("security_file_ioctl", "__x64_sys_ioctl"),
    ("security_file_fcntl", "__x64_sys_fcntl"),
    ("security_inode_alloc", "inode_init_always"),
    ("inode_init_always", "alloc_inode"),
    ("alloc_inode", "new_inode_pseudo"),
    ("new_inode_pseudo", "new_inode"),
    ("security_inode_free", "__destroy_inode"),
    ("__destroy_inode", "destroy_inode"),
    ("security_inode_permission", "inode_permission"),
    ("security_inode_getattr", "vfs_getattr"),
    ("security_inode_getxattr", "vfs_getxattr"),
    ("security_inode_setxattr", "__vfs_setxattr_locked"),
    ("cap_inode_setxattr", "security_inode_setxattr"),
    ("security_inode_post_setxattr", "__vfs_setxattr_noperm"),
    ("security_inode_listxattr", "vfs_listxattr"),
    ("security_inode_removexattr", "__vfs_removexattr_locked"),
    ("cap_inode_removexattr", "security_inode_removexattr"),
    ("security_d_instantiate", "d_instantiate"),
    ("security_inode_create", "vfs_create"),
    ("security_inode_mkdir", "vfs_mkdir"),
    ("security_inode_rmdir", "vfs_rmdir"),
    ("security_inode_unlink", "vfs_unlink"),
    ("security_inode_symlink", "vfs_symlink"),
    ("security_inode_link", "vfs_link"),
    ("security_inode_rename", "vfs_rename"),
    ("security_inode_readlink", "do_readlinkat"),
    ("security_path_mkdir", "do_mkdirat"),
    ("security_path_rmdir", "do_rmdir"),
    ("security_path_unlink", "do_unlinkat"),
    ("security_path_symlink", "do_symlinkat"),
    ("security_path_link", "do_linkat"),
    ("security_path_rename", "do_renameat2"),
    ("security_path_mknod", "do_mknodat"),
    ("security_path_truncate", "do_sys_ftruncate"),
    ("security_path_chmod", "chmod_common"),
    ("security_path_chroot", "__x64_sys_chroot"),
    ("security_inode_setattr", "notify_change"),
    ("notify_change", "chmod_common"),
    ("notify_change", "do_truncate"),
    ("notify_change", "vfs_utimes"),
    ("security_mmap_file", "vm_mmap_pgoff"),
    ("cap_mmap_file", "security_mmap_file"),
    ("security_mmap_addr", "get_unmapped_area"),
    ("cap_mmap_addr", "security_mmap_addr"),
    ("security_file_mprotect", "do_mprotect_pkey"),
    ("security_bprm_creds_for_exec", "bprm_execve"),
    ("security_bprm_check", "bprm_execve"),                   # search_binary_handler (inline)
    ("security_bprm_creds_from_file", "begin_new_exec"),      # bprm_creds_from_file (inline)
    ("cap_bprm_creds_from_file", "security_bprm_creds_from_file"),
    ("security_bprm_committing_creds", "begin_new_exec"),
    ("security_bprm_committed_creds", "begin_new_exec"),
    ("security_task_alloc", "copy_process"),
    ("security_task_free", "__put_task_struct"),
    ("free_task", "__put_task_struct"),
    ("security_task_kill", "check_kill_permission"),
    ("check_kill_permission", "kill_pid_info"),               # group_send_sig_info (inline here)
    ("check_kill_permission", "do_send_specific"),
    ("security_socket_create", "__sock_create"),
    ("security_socket_post_create", "__sock_create"),
    ("security_socket_socketpair", "__sys_socketpair"),
    ("security_socket_bind", "__sys_bind"),
    ("security_socket_listen", "__sys_listen"),
    ("security_socket_connect", "__sys_connect_file"),
    ("security_socket_accept", "do_accept"),
    ("security_socket_sendmsg", "__sock_sendmsg"),
    ("__sock_sendmsg", "__sys_sendto"),
    ("security_socket_recvmsg", "sock_recvmsg"),
    ("security_socket_setsockopt", "__sys_setsockopt"),
    ("security_socket_getsockopt", "__sys_getsockopt"),
    ("security_socket_shutdown", "__sys_shutdown_sock"),
    ("security_sk_alloc", "sk_prot_alloc"),
    ("security_sk_free", "__sk_destruct"),
}


def test_lsm_hooks_are_called_where_6_1_calls_them(machine):
    """Every hook here is a function of 6.1's available_filter_functions, and each runs under
    the caller 6.1 has (the file, inode, exec, task, signal, mapping and socket paths)."""
    calls = traced_calls(machine, {f for f, _ in LSM}, [
        *[(["fsop", family, f"/tmp/fsop-l{family}"], None) for family in ("open", "dir", "link", "fd", "rw", "stat", "mm", "cap")],
        (["nettest", "tcp"], None),
        (["nettest", "unix"], None),
        (["nettest", "udp"], None),
        (["progtest-pie", "uname"], None),      # its start-up's mprotect of RELRO
        (["polltest", "utimes"], None),
        (["fsop", "xattr", "/etc", "/tmp"], None),
        (["progtest", "xattr"], None),
    ])
    assert LSM <= calls, LSM - calls


# (function, its caller) as in 6.1's fs/xattr.c, mm/shmem.c, fs/open.c
XATTR_AND_FALLOCATE = {
    ("setxattr", "__x64_sys_fsetxattr"),
    ("setxattr_copy", "setxattr"),
    ("do_setxattr", "setxattr"),
    ("vfs_setxattr", "do_setxattr"),
    ("__vfs_setxattr_locked", "vfs_setxattr"),
    ("xattr_permission", "__vfs_setxattr_locked"),
    ("__vfs_setxattr_noperm", "__vfs_setxattr_locked"),
    ("__vfs_setxattr", "__vfs_setxattr_noperm"),
    ("xattr_resolve_name", "__vfs_setxattr"),
    ("shmem_xattr_handler_set", "__vfs_setxattr"),
    ("simple_xattr_set", "shmem_xattr_handler_set"),
    ("simple_xattr_alloc", "simple_xattr_set"),
    ("getxattr", "__x64_sys_fgetxattr"),
    ("shmem_xattr_handler_get", "__vfs_getxattr"),
    ("simple_xattr_get", "shmem_xattr_handler_get"),
    ("listxattr", "__x64_sys_flistxattr"),
    ("vfs_listxattr", "listxattr"),
    ("shmem_listxattr", "vfs_listxattr"),
    ("simple_xattr_list", "shmem_listxattr"),
    ("removexattr", "__x64_sys_fremovexattr"),
    ("vfs_removexattr", "removexattr"),
    ("__vfs_removexattr_locked", "vfs_removexattr"),
    ("__vfs_removexattr", "__vfs_removexattr_locked"),
    ("shmem_xattr_handler_set", "__vfs_removexattr"),
    ("ksys_fallocate", "__x64_sys_fallocate"),
    ("vfs_fallocate", "ksys_fallocate"),
    ("shmem_fallocate", "vfs_fallocate"),
    ("shmem_get_folio", "shmem_fallocate"),
    ("file_modified", "shmem_fallocate"),
}


def test_xattr_and_fallocate_run_6_1s_chains(machine):
    """fsetxattr, fgetxattr, flistxattr, fremovexattr and fallocate on tmpfs run 6.1's chains."""
    calls = traced_calls(machine, {f for f, _ in XATTR_AND_FALLOCATE}, [
        (["progtest", "xattr"], None),
        (["progtest", "fallocate"], None),
    ])
    assert XATTR_AND_FALLOCATE <= calls, XATTR_AND_FALLOCATE - calls


# (function, its caller) as in 6.1's fs/notify/ and the VFS hooks of include/linux/fsnotify.h
INOTIFY = {
    ("do_inotify_init", "__x64_sys_inotify_init1"),
    ("fsnotify_alloc_group", "do_inotify_init"),   # inotify_new_group (inline)
    ("inotify_update_watch", "__x64_sys_inotify_add_watch"),
    ("inotify_find_inode", "__x64_sys_inotify_add_watch"),
    ("fsnotify_add_mark_locked", "inotify_update_watch"),  # inotify_new_watch (inline)
    ("fsnotify", "vfs_rmdir"),
    ("fsnotify", "vfs_mkdir"),
    ("__fsnotify_parent", "vfs_write"),
    ("__fsnotify_parent", "vfs_read"),
    ("__fsnotify_parent", "do_iter_write"),
    ("__fsnotify_parent", "do_iter_read"),
    ("__fsnotify_parent", "__fput"),
    ("__fsnotify_parent", "do_sys_openat2"),
    ("__fsnotify_parent", "notify_change"),
    ("fsnotify", "vfs_rename"),
    ("fsnotify_get_cookie", "vfs_rename"),
    ("fsnotify", "vfs_unlink"),
    ("fsnotify", "dentry_unlink_inode"),
    ("__fsnotify_inode_delete", "dentry_unlink_inode"),
    ("inotify_handle_inode_event", "fsnotify_handle_inode_event.isra.0"),
    ("fsnotify_insert_event", "inotify_handle_inode_event"),
    ("inotify_merge", "fsnotify_insert_event"),
    ("inotify_read", "vfs_read"),
    ("fsnotify_remove_first_event", "inotify_read"),
    ("inotify_poll", "do_sys_poll"),
    ("inotify_ioctl", "vfs_ioctl"),
    ("fsnotify_destroy_mark", "__x64_sys_inotify_rm_watch"),
    ("inotify_freeing_mark", "fsnotify_free_mark"),
    ("inotify_ignored_and_remove_idr", "inotify_freeing_mark"),
    ("inotify_release", "__fput"),
    ("fsnotify_destroy_group", "inotify_release"),
    ("inotify_show_fdinfo", "seq_show"),
    ("show_fdinfo.isra.0", "inotify_show_fdinfo"),
    ("inotify_fdinfo", "show_fdinfo.isra.0"),
    ("show_mark_fhandle", "inotify_fdinfo"),
    ("exportfs_encode_inode_fh", "show_mark_fhandle"),
    ("shmem_encode_fh", "exportfs_encode_inode_fh"),
}


def test_inotify_runs_6_1s_chains(machine):
    """inotify's syscalls, its fd's read, poll, ioctl and release, and the VFS's hooks calling
    fsnotify() run 6.1's chains."""
    calls = traced_calls(machine, {f for f, _ in INOTIFY}, [(["progtest", "inotify"], None)])
    assert INOTIFY <= calls, INOTIFY - calls
