"""set_event_pid / set_event_notrace_pid for the sched events, in the guest at record time, as
Linux 6.1's pid probes decide (event_filter_pid_sched_switch_probe_pre, ..._wakeup_probe_pre; checked
on the real kernel): a sched_switch is kept unless both tasks are in the notrace list or neither is
in the pid list; a sched_waking/sched_wakeup/sched_wakeup_new is kept when the waker's lists or the
woken task's keep it; any other event follows the current task's lists."""
import struct
import time

import pytest

from tracefs_sim.machine import Machine, MachineOptions
from tests.rb_page_reference import decode_page

IDS = {"sched_switch": 301, "sched_waking": 302, "sched_wakeup": 303, "sched_process_exit": 304}


@pytest.fixture
def machine(vmlinux):
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2))  # live: `sleep` takes wall time
    m.start()
    events = {e.name: e for e in m.image.events}
    for name, event_id in IDS.items():
        m.tracing.set_event_id(events[name], event_id)
        m.tracing.enable_event(events[name], 0, True)
    m.events = events
    yield m
    m.stop()


def field(machine, event, name, payload):
    f = next(f for f in machine.events[event].fields if f.name == name)
    return struct.unpack_from("<i", payload, f.offset)[0]


def records(machine):
    """(event name, common_pid, the event's task pids) of slot 0's records, in ring order."""
    names = {v: k for k, v in IDS.items()}
    out = []
    for page in machine.tracing.drain(0):
        for ev in decode_page(page.data).events:
            typ, _, _, pid = struct.unpack_from("<HBBi", ev.payload)
            name = names.get(typ)
            if name == "sched_switch":
                tasks = (field(machine, name, "prev_pid", ev.payload), field(machine, name, "next_pid", ev.payload))
            elif name in ("sched_waking", "sched_wakeup", "sched_process_exit"):
                tasks = (field(machine, name, "pid", ev.payload),)
            else:
                continue
            out.append((name, pid, tasks))
    return out


def sleeper(machine, pids=None, notrace=None):
    """Runs `sleep 0.4` with the lists set while it sleeps; the records of its wake-up and exit."""
    proc = machine.spawn(["sleep", "0.4"])
    lists = machine.tracing.pid_lists
    lists.set_event_pids(0, False, None if pids is None else frozenset(pids(proc.pid)))
    lists.set_event_pids(0, True, None if notrace is None else frozenset(notrace(proc.pid)))
    machine.tracing.set_recording(0, True)
    assert proc.wait(60) == 0
    time.sleep(0.2)
    machine.tracing.set_recording(0, False)
    return proc.pid, records(machine)


def test_pid_list_keeps_switches_to_and_from_a_listed_task_and_its_wakeups(machine):
    pid, recs = sleeper(machine, pids=lambda p: {p})
    switches = [r for r in recs if r[0] == "sched_switch"]
    assert all(pid in tasks for _, _, tasks in switches)
    assert any(tasks[1] == pid and common != pid for _, common, tasks in switches)  # switched in, by the other
    assert any(tasks[0] == pid and common == pid for _, common, tasks in switches)  # switched out (its exit)
    # the timer wakes it from another task's context; the woken task's listing keeps it
    assert any(name == "sched_wakeup" and tasks == (pid,) and common != pid for name, common, tasks in recs)
    assert ("sched_process_exit", pid, (pid,)) in recs
    assert all(common == pid or pid in tasks for _, common, tasks in recs)


def test_notrace_list_drops_a_switch_only_when_both_tasks_are_in_it(machine):
    pid, recs = sleeper(machine, notrace=lambda p: {p})
    switches = [tasks for name, _, tasks in recs if name == "sched_switch"]
    assert any(tasks[0] == pid for tasks in switches) and any(tasks[1] == pid for tasks in switches)
    assert not any(name == "sched_process_exit" for name, _, _ in recs)     # its own event: dropped
    pid, recs = sleeper(machine, notrace=lambda p: {p, 0})
    switches = [tasks for name, _, tasks in recs if name == "sched_switch"]
    assert switches == [] or not any(set(tasks) <= {pid, 0} for tasks in switches)
    # woken by the timer from idle: both notrace, dropped
    assert not any(name == "sched_wakeup" and tasks == (pid,) for name, _, tasks in recs)


def test_a_task_in_both_lists_keeps_its_switches_only(machine):
    pid, recs = sleeper(machine, pids=lambda p: {p}, notrace=lambda p: {p})
    assert recs and all(name == "sched_switch" and pid in tasks for name, _, tasks in recs)
    assert any(tasks[0] == pid for _, _, tasks in recs) and any(tasks[1] == pid for _, _, tasks in recs)
