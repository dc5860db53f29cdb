"""The kernel's internal subsystems in a session: with the default workload, their events show
within two seconds of enabling them, printed as Linux 6.1 prints them; the lock functions for
the issue's `*spin_lock*` recipe; kprobes on gcc's clones and on names two functions share."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
P = r"([0-9a-f]{16}|\(____ptrval____\))"  # %p: hashed, or before the hash key is ready
# what each event's text looks like as 6.1 prints it (the services' start at boot shows too)
EVENTS = {
    "irq/irq_handler_entry": r"irq_handler_entry: irq=(0 name=timer|24 name=nvme0q1)$",
    "irq/softirq_entry": r"softirq_entry: vec=\d+ \[action=(TIMER|NET_RX|RCU|SCHED)\]$",
    "irq_vectors/local_timer_entry": r"local_timer_entry: vector=236$",
    # the host's requests (the session's calls among them) come by the call-function IPI
    "irq_vectors/call_function_entry": r"call_function_entry: vector=252$",
    "timer/hrtimer_start": r"hrtimer_start: hrtimer=" + P + r" function=\w+ expires=\d+ softexpires=\d+ "
                           r"mode=(ABS|REL)\S* was_armed=[01]$",
    "timer/timer_start": r"timer_start: timer=" + P + r" function=\w+ expires=\d+ \[timeout=-?\d+\] cpu=\d "
                         r"idx=\d+ flags=\S*$",
    "workqueue/workqueue_execute_start": r"workqueue_execute_start: work struct " + P + r": function \w+$",
    "kmem/kmem_cache_alloc": r"kmem_cache_alloc: call_site=\w+\+0x[0-9a-f]+/0x[0-9a-f]+ ptr=" + P + r" "
                             r"bytes_req=\d+ bytes_alloc=\d+ gfp_flags=\S+ node=-1 accounted=(true|false)$",
    "kmem/mm_page_alloc": r"mm_page_alloc: page=" + P + r" pfn=0x[0-9a-f]+ order=\d migratetype=\d "
                          r"gfp_flags=\S+$",
    "task/task_newtask": r"task_newtask: pid=\d+ comm=\S+ clone_flags=[0-9a-f]+ oom_score_adj=0$",
    "task/task_rename": r"task_rename: pid=\d+ oldcomm=\S+ newcomm=\S+ oom_score_adj=0$",
    "sched/sched_process_free": r"sched_process_free: comm=\S+ pid=\d+ prio=120$",
    "rcu/rcu_utilization": r"rcu_utilization: (Start|End) (scheduler-tick|context switch|RCU core)$",
    "printk/console": r"console: CRON\[\d+\]: \(root\) CMD \(true\)$",
    # the disk writer's appends, fsyncs and syncs (the flusher's kworker writes too)
    "block/block_rq_issue": r"block_rq_issue: 259,0 (WS?|FF) \d+ \(\) \d+ \+ \d+ \[(diskwriter|kworker/\d+:\d+)\]$",
    "block/block_rq_complete": r"block_rq_complete: 259,0 (WS?|FF) \(\) \d+ \+ \d+ \[0\]$",
    "filemap/mm_filemap_add_to_page_cache": r"mm_filemap_add_to_page_cache: dev 259:0 ino [0-9a-f]+ "
                                            r"pfn=0x[0-9a-f]+ ofs=\d+ order=0$",
    "writeback/writeback_dirty_folio": r"writeback_dirty_folio: bdi 259:0: ino=\d+ index=\d+$",
    # redis and sshd over loopback
    "net/net_dev_start_xmit": r"net_dev_start_xmit: dev=lo queue_mapping=0 skbaddr=" + P + r" vlan_tagged=0 "
                              r"vlan_proto=0x0000 vlan_tci=0x0000 protocol=0x0800 ip_summed=0 len=\d+ "
                              r"data_len=0 network_offset=14 transport_offset_valid=1 transport_offset=34 "
                              r"tx_flags=0 gso_size=0 gso_segs=0 gso_type=0x0$",
}


def test_every_subsystems_events_fire_within_two_seconds_of_the_default_workload():
    enable = "; ".join(f"echo 1 > {T}/events/{e}/enable" for e in EVENTS)
    result = tracefs_sim("run", "--workload", "default", "-c",
                         f"{enable}; sleep 2; echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if not line.startswith("#")]
    for event, text in EVENTS.items():
        name = event.split("/")[1]
        mine = [line for line in lines if f" {name}: " in line]
        assert mine, f"{event} did not fire"
        assert all(re.search(text, line) for line in mine), (event, [l for l in mine if not re.search(text, l)])
    # cron's job: a child forked, renamed by its exec, freed after it was reaped
    for cause in (r"task_newtask: pid=\d+ comm=cron clone_flags=0 ", r"task_rename: pid=\d+ oldcomm=cron newcomm=true ",
                  r"sched_process_free: comm=true "):
        assert any(re.search(cause, line) for line in lines), cause


def test_spin_lock_filter_and_kprobes_on_clones_and_shared_names():
    result = tracefs_sim("run", "--workload", "none", "-c", f"""
cd {T}
echo '== filter'; echo '*spin_lock*' > set_ftrace_filter; cat set_ftrace_filter; echo > set_ftrace_filter
echo '== clone'; echo 'p:myup __up.isra.0' > kprobe_events && echo 'p __mutex_lock.constprop.0+5' >> kprobe_events
cat kprobe_events
echo '== shared'; echo 'p find_next_bit' >> kprobe_events; echo "status $?"; cat error_log
echo '== plain'; echo 'p __up' >> kprobe_events; echo "status $?"
echo > kprobe_events
echo '== formats'; cat printk_formats
""", timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout

    def section(title):
        return out.split(f"== {title}\n", 1)[1].split("\n== ", 1)[0].splitlines()

    assert sorted(section("filter")) == ["_raw_spin_lock", "_raw_spin_lock_irq", "_raw_spin_lock_irqsave",
                                         "native_queued_spin_lock_slowpath"]
    assert section("clone") == ["p:kprobes/myup __up.isra.0",
                                "p:kprobes/p___mutex_lock_constprop_0_5 __mutex_lock.constprop.0+5"]
    shared = section("shared")
    assert shared[0] == "status 1" and any("trace_kprobe: error: The symbol is not unique" in l for l in shared)
    assert section("plain") == ["status 1"]   # 6.1 has no plain __up either: ENOENT
    assert '"Start scheduler-tick"' in out and re.search(r"^0xffffffff8[0-9a-f]+ : \"End RCU core\"$",
                                                         out, re.M)


def test_interval_timers_and_a_sync_show_their_events():
    """fsop's ITIMER_REAL and alarm() calls (itimer_state, and itimer_expire when its 50 ms
    timer runs out) and the session's `sync` after dd wrote a file on the disk: the flusher
    queues the dirty inode (writeback_queue_io, reason sync) and writes it
    (writeback_single_inode_start/_single_inode: its 2 pages)."""
    events = ("timer/itimer_state", "timer/itimer_expire", "writeback/writeback_queue_io",
              "writeback/writeback_single_inode_start", "writeback/writeback_single_inode")
    enable = "; ".join(f"echo 1 > {T}/events/{e}/enable" for e in events)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{enable}; tracefs-sim exec fsop task /tmp/fsop-task > /dev/null; "
                         f"tracefs-sim exec dd if=/dev/zero of=/mnt/writeback-test bs=4096 count=2 2> /dev/null; "
                         f"sync; echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if not line.startswith("#")]
    states = [line.split("itimer_state: ")[1] for line in lines if " fsop-" in line and "itimer_state: " in line]
    # setitimer 10 s, alarm(5), alarm(0), then 50 ms (the one refused with EINVAL is not traced)
    assert states == ["which=0 expires=0 it_value=10.000000 it_interval=0.000000",
                      "which=0 expires=0 it_value=5.000000 it_interval=0.000000",
                      "which=0 expires=0 it_value=0.000000 it_interval=0.000000",
                      "which=0 expires=0 it_value=0.050000 it_interval=0.000000"], states
    fsop_pid = next(re.search(r" fsop-(\d+) ", line).group(1) for line in lines if " fsop-" in line)
    assert any(re.search(rf"itimer_expire: which=0 pid={fsop_pid} now=0$", line) for line in lines)
    queued = [line for line in lines if "writeback_queue_io: " in line]
    # age: jiffies since the flusher's pass began, in ms (HZ 250: 4 ms a tick that came between)
    ages = [re.search(r"writeback_queue_io: bdi 259:0: older=\d+ age=(\d+) enqueue=[1-9]\d* reason=sync "
                      r"cgroup_ino=1$", line) for line in queued]
    assert any(m and int(m.group(1)) % 4 == 0 for m in ages), queued
    single = r": bdi 259:0: ino=\d+ state=\S+ dirtied_when=\d+ age=\d+ index=\d+ to_write=\d+ wrote=(\d+) cgroup_ino=1$"
    for name in ("writeback_single_inode_start", "writeback_single_inode"):
        mine = [line for line in lines if f" {name}: " in line]
        assert mine and all(re.search(name + single, line) for line in mine), (name, mine)
    wrote = [int(re.search(single, line).group(1)) for line in lines if " writeback_single_inode: " in line]
    assert 2 in wrote, wrote      # dd's file: its two pages


def test_mmap_events_of_a_programs_mappings_and_its_end():
    """fsop's anonymous maps without an address go where vm_unmapped_area finds a gap below
    mmap_base (top down: flags 0x1, from PAGE_SIZE), each a line and the blank line its print
    fmt's \\n makes; an address space that goes shows exit_mmap."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/mmap/enable; tracefs-sim exec fsop mm /tmp/fsop-mm > /dev/null; "
                         f"echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    found = [i for i, line in enumerate(lines) if " vm_unmapped_area: " in line]
    assert found and all(" fsop-" in lines[i] and lines[i + 1] == "" for i in found)
    for i in found:
        m = re.search(r"vm_unmapped_area: addr=0x([0-9a-f]+) err=0 total_vm=0x[0-9a-f]+ flags=0x1 len=0x([0-9a-f]+) "
                      r"lo=0x1000 hi=0x([0-9a-f]+) mask=0x0 ofs=0x0$", lines[i])
        assert m, lines[i]
        addr, length, high = (int(g, 16) for g in m.groups())
        assert addr + length <= high and addr % 4096 == 0
    assert any(re.search(r"exit_mmap: mt_mod " + P + r", DESTROY$", line) for line in lines)


def test_mmap_lock_events_pair_each_lock_with_its_release():
    """fsop's mmap/munmap/mprotect/brk take its mmap_lock for writing (start_locking, then
    acquire_returned), its page faults for reading by a trylock (acquire_returned only); every
    lock is released (memcg_path empty: no memory cgroups here). fsop forks (its child's faults
    take the child's own mm's lock, on the other cpu meanwhile): each task's events pair up."""
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"echo 1 > {T}/events/mmap_lock/enable; tracefs-sim exec fsop mm /tmp/fsop-mm > /dev/null; "
                         f"echo 0 > {T}/tracing_on; cat {T}/trace", timeout=120)
    assert result.returncode == 0, result.stderr
    events = [re.search(r" fsop-(\d+) .* (mmap_lock_\w+): mm=" + P + r" memcg_path= write=(true|false)"
                        r"(?: success=(true|false))?$", line)
              for line in result.stdout.splitlines() if " fsop-" in line and " mmap_lock_" in line]
    assert events and all(events)
    by_task: dict[str, list[tuple[str, str, str | None]]] = {}
    for m in events:
        if m:
            by_task.setdefault(m.group(1), []).append((m.group(2), m.group(4), m.group(5)))
    every = [event for seq in by_task.values() for event in seq]
    assert ("mmap_lock_start_locking", "true", None) in every
    assert ("mmap_lock_acquire_returned", "false", "true") in every
    for seq in by_task.values():
        held = {"true": 0, "false": 0}
        for i, (name, write, success) in enumerate(seq):
            if name == "mmap_lock_start_locking":
                assert seq[i + 1] == ("mmap_lock_acquire_returned", write, "true"), seq[i:i + 2]
            elif name == "mmap_lock_acquire_returned":
                held[write] += success == "true"     # (a trylock that failed holds nothing)
            else:
                held[write] -= 1
                assert held[write] == 0, seq[:i + 1]   # one lock at a time: a mutex here
        assert held == {"true": 0, "false": 0}
