"""Boot on N CPUs with paging: idle tasks, init, kernel threads, the clock."""
import resource
import struct
import time

import pytest

from tracefs_sim.machine import Machine, MachineError, MachineOptions


def comms(machine):
    return {t.comm for t in machine.tasks()}


@pytest.mark.parametrize("cpus", [1, 2, 4, 8])
def test_boot_tasks(make_machine, cpus):
    m = make_machine(cpus=cpus)
    tasks = m.tasks()
    by_pid = {t.pid: t for t in tasks if t.pid}
    assert by_pid[1].comm in ("init", "swapper/0")  # exec of init may still be under way
    assert by_pid[2].comm == "kthreadd"
    names = comms(m)
    for cpu in range(cpus):
        assert {f"swapper/{cpu}", f"ksoftirqd/{cpu}", f"migration/{cpu}", f"kworker/{cpu}:1"} <= names
    assert "rcu_sched" in names
    assert m.nr_cpus == cpus


def test_default_workload_runs_services(make_machine):
    m = make_machine(workload="default")
    deadline = time.monotonic() + 10
    while not {"sshd", "redis-server", "node"} <= comms(m):
        assert time.monotonic() < deadline, comms(m)
        time.sleep(0.05)
    assert {t.comm for t in m.tasks() if t.pid == 1} == {"init"}


def test_live_clock_follows_wall_time(make_machine):
    m = make_machine()
    t0, v0 = time.monotonic_ns(), m.now_ns()
    time.sleep(0.3)
    dv, dt = m.now_ns() - v0, time.monotonic_ns() - t0
    assert 0 < dv <= dt + 5_000_000
    assert dv > dt * 0.8


def test_timer_ticks_and_kworker_folding(make_machine, image):
    m = make_machine(workload="default")
    jiffies = image.lookup("jiffies").addr
    folded = image.lookup("vm_stat_syscalls").addr
    time.sleep(2.2)
    j = struct.unpack("<Q", m.read_memory(jiffies, 8))[0]
    assert j >= 2 * 250 * 0.8  # HZ=250, caught up from the clock by cpu0's tick
    # kworker/N:1 folds the per-cpu syscall counters once a second (timer -> softirq -> work)
    assert struct.unpack("<Q", m.read_memory(folded, 8))[0] > 0


def test_idle_system_is_cheap(make_machine):
    make_machine(workload="default")
    time.sleep(0.5)
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    time.sleep(2)
    r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    used = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    assert used / (t1 - t0) < 0.10


def test_stop_is_idempotent(make_machine):
    m = make_machine()
    m.stop()
    m.stop()
    with pytest.raises(MachineError):
        m.spawn(["true"])


def test_bad_options(vmlinux):
    with pytest.raises(ValueError):
        Machine(MachineOptions(cpus=0, kernel_image=vmlinux))
    with pytest.raises(ValueError):
        Machine(MachineOptions(cpus=9, kernel_image=vmlinux))
    with pytest.raises(ValueError):
        Machine(MachineOptions(workload="bogus", kernel_image=vmlinux))
