"""options/event-fork and options/function-fork in the guest: a child of a listed task joins
the slot's pid list at fork and leaves it when freed; set_event_pid filters records as the
guest writes them.  Programs `machine.spawn` starts are forked by kthreadd, so kthreadd is
the listed parent here (as the shell is in a real session)."""
import struct
import time

import pytest

from tests.rb_page_reference import decode_page

EXIT_ID = 300


@pytest.fixture
def machine(make_machine):
    return make_machine(traced=True, cpus=2)  # live: `sleep` takes wall time


def kthreadd(machine) -> int:
    return next(t.pid for t in machine.tasks() if t.comm == "kthreadd")


def wait_until(predicate, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def exit_pids(machine, slot=0):
    """pids of the sched_process_exit records in the slot's rings."""
    pids = []
    for page in machine.tracing.drain(slot):
        for ev in decode_page(page.data).events:
            typ, _, _, pid = struct.unpack_from("<HBBi", ev.payload)
            if typ == EXIT_ID:
                pids.append(pid)
    return pids


def test_event_fork_adds_children_and_frees_drop_them(machine):
    lists = machine.tracing.pid_lists
    parent = kthreadd(machine)
    lists.set_event_pids(0, False, frozenset({parent, 40000}))
    lists.set_event_pids(0, True, frozenset({parent}))
    lists.set_event_fork(0, True)
    proc = machine.spawn(["sleep", "0.5"])
    assert lists.event_pids(0, False) == {parent, proc.pid, 40000}   # above the guest's pids: kept
    assert lists.event_pids(0, True) == {parent, proc.pid}
    assert proc.wait(60) == 0
    # sched_process_free: once the task is freed (after its reaping and a grace period)
    assert wait_until(lambda: lists.event_pids(0, False) == {parent, 40000})
    assert lists.event_pids(0, True) == {parent}


def test_event_fork_of_a_slot_past_word_0(machine):
    """event-fork of an instance slot past word 0 of the kernel's masks (event_fork_ext): its
    lists take the children of listed tasks and drop them when freed; word 0's lists unchanged."""
    lists, slot = machine.tracing.pid_lists, 200
    machine.tracing.open_slot(slot)
    parent = kthreadd(machine)
    lists.set_event_pids(slot, False, frozenset({parent}))
    lists.set_event_pids(slot, True, frozenset({parent}))
    lists.set_event_fork(slot, True)
    lists.set_event_pids(0, False, frozenset({parent}))
    proc = machine.spawn(["sleep", "0.5"])
    assert lists.event_pids(slot, False) == {parent, proc.pid}
    assert lists.event_pids(slot, True) == {parent, proc.pid}
    assert lists.event_pids(0, False) == {parent}          # slot 0 does not follow forks
    assert proc.wait(60) == 0
    assert wait_until(lambda: lists.event_pids(slot, False) == {parent})
    assert lists.event_pids(slot, True) == {parent}


def test_event_fork_off_follows_nothing_and_keeps_lists(machine):
    lists = machine.tracing.pid_lists
    parent = kthreadd(machine)
    lists.set_event_pids(0, False, frozenset({parent}))
    proc = machine.spawn(["sleep", "0.2"])
    assert lists.event_pids(0, False) == {parent}
    assert proc.wait(60) == 0
    assert lists.event_pids(0, True) is None


def test_a_list_whose_tasks_all_went_is_empty_not_gone(machine):
    lists = machine.tracing.pid_lists
    lists.set_event_pids(0, False, frozenset({kthreadd(machine)}))
    lists.set_event_fork(0, True)
    proc = machine.spawn(["sleep", "0.2"])
    lists.set_event_pids(0, False, frozenset({proc.pid}))   # only the child
    assert proc.wait(60) == 0
    assert wait_until(lambda: lists.event_pids(0, False) == frozenset())


def test_records_follow_the_list_at_the_time_they_are_written(machine):
    exit_event = next(e for e in machine.image.events if e.name == "sched_process_exit")
    machine.tracing.set_event_id(exit_event, EXIT_ID)
    machine.tracing.enable_event(exit_event, 0, True)
    lists = machine.tracing.pid_lists
    lists.set_event_pids(0, False, frozenset({kthreadd(machine)}))
    first = machine.spawn(["true"])          # not followed: its exit is filtered out
    assert first.wait(60) == 0
    lists.set_event_fork(0, True)
    second = machine.spawn(["true"])         # followed from its fork on
    assert second.wait(60) == 0
    # the child is freed soon after; its record, written while it was listed, stays
    assert wait_until(lambda: second.pid not in lists.event_pids(0, False))
    pids = exit_pids(machine)
    assert second.pid in pids and first.pid not in pids


def test_function_fork_adds_to_the_ftrace_lists(machine):
    sites, lists = machine.sites, machine.tracing.pid_lists
    parent = kthreadd(machine)
    sites.set_pids(0, frozenset({parent}), frozenset({parent}))
    lists.set_function_fork(0, True)
    proc = machine.spawn(["sleep", "0.5"])
    assert sites.read_pids(0) == ({parent, proc.pid}, {parent, proc.pid})
    sites.set_stack_trace(0, True)         # other host writes leave the guest's additions be
    assert sites.read_pids(0) == ({parent, proc.pid}, {parent, proc.pid})
    assert proc.wait(60) == 0
    assert wait_until(lambda: sites.read_pids(0) == ({parent}, {parent}))
    lists.set_function_fork(0, False)
    other = machine.spawn(["true"])
    assert sites.read_pids(0) == ({parent}, {parent})
    assert other.wait(60) == 0


def test_function_fork_of_a_slot_past_word_0(machine):
    """function-fork of a slot past word 0 (function_fork_ext; its lists in the slot's
    struct ftrace_ext_slot): children of listed tasks join, freed ones go; slot 0 follows none."""
    sites, lists, slot = machine.sites, machine.tracing.pid_lists, 300
    machine.tracing.open_slot(slot)
    parent = kthreadd(machine)
    sites.set_pids(slot, frozenset({parent}), frozenset({parent}))
    sites.set_pids(0, frozenset({parent}), frozenset())
    lists.set_function_fork(slot, True)
    proc = machine.spawn(["sleep", "0.5"])
    assert sites.read_pids(slot) == ({parent, proc.pid}, {parent, proc.pid})
    assert sites.read_pids(0) == ({parent}, None)
    assert proc.wait(60) == 0
    assert wait_until(lambda: sites.read_pids(slot) == ({parent}, {parent}))
    lists.set_function_fork(slot, False)
    sites.set_pids(slot, frozenset(), frozenset())
    machine.tracing.close_slot(slot)
    assert sites.read_pids(slot) == (None, None)
