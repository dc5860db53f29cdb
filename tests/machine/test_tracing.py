"""machine.tracing: static keys, the guest's ring pages, drain/lost/reset, slots."""
import errno
import struct
import threading
import time

import pytest
from capstone import CS_ARCH_X86, CS_MODE_64, Cs

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.trace.rb_page import PageWriter
from tests.rb_page_reference import Stamp, decode_page

NR_GETUID = 102


def events_by_name(image):
    return {e.name: e for e in image.events}


def setup_ids(machine):
    """Ids as the trace core would number them: 1.. over the event list."""
    ids = {}
    for i, e in enumerate(machine.image.events):
        machine.tracing.set_event_id(e, 100 + i)
        ids[e.name] = 100 + i
    return ids


def drain_all(tracing, slot, pages=None):
    """Drain into {(cpu, seq): GuestPage}, keeping each page's latest version."""
    pages = {} if pages is None else pages
    for page in tracing.drain(slot):
        pages[(page.cpu, page.seq)] = page
    return pages


def records(pages):
    """(cpu, timestamp, payload) of every event, per CPU in page order."""
    out = []
    for (cpu, _), page in sorted(pages.items()):
        for e in decode_page(page.data).events:
            out.append((cpu, e.timestamp, bytes(e.payload)))
    return out


def header(payload):
    return struct.unpack_from("<HBBi", payload)  # common_type, flags, preempt_count, pid


def run(machine, argv):
    proc = machine.spawn(argv)
    assert proc.wait(30) == 0
    return proc


def settle(machine):
    """Let the run loop finish the current round and one more, so everything the program did
    is committed: a live machine's slices end by time, so the round in progress may have
    stopped the program's CPU in its last steps, after the exit the test waited for."""
    for _ in range(2):
        machine.read_memory(machine.image.text_range[0], 1)


def test_static_key_patch_and_restore(make_machine, image):
    m = make_machine(cpus=1)
    start, end = image.text_range
    pristine = image.read(start, end - start)
    assert m.read_memory(start, end - start) == pristine  # nothing enabled: the ELF's text
    switch = events_by_name(image)["sched_switch"]
    sites = [e for e in image.jump_entries if e.key == switch.key_addr]
    assert sites
    md = Cs(CS_ARCH_X86, CS_MODE_64)
    m.tracing.enable_event(switch, 0, True)
    m.tracing.open_slot(3)
    m.tracing.enable_event(switch, 3, True)
    for entry in sites:
        code = m.read_memory(entry.code, 5)
        assert code != image.read(entry.code, 5)
        insn = next(md.disasm(code, entry.code))
        assert insn.mnemonic == "jmp" and int(insn.op_str, 16) == entry.target
    m.tracing.enable_event(switch, 0, False)  # slot 3 still has it: key stays on
    assert all(m.read_memory(e.code, 1) == b"\xe9" for e in sites)
    m.tracing.enable_event(switch, 3, False)
    m.tracing.enable_event(switch, 3, False)  # idempotent
    assert m.read_memory(start, end - start) == pristine


def test_syscall_event_rides_on_raw_syscalls_key(make_machine, image):
    m = make_machine(cpus=1)
    ev = events_by_name(image)
    raw = ev["sys_enter"]
    getuid = ev["sys_enter_getuid"]
    assert getuid.key_addr == raw.key_addr and getuid.syscall_nr == NR_GETUID
    sites = [e.code for e in image.jump_entries if e.key == raw.key_addr]
    m.tracing.enable_event(getuid, 0, True)
    assert all(m.read_memory(c, 1) == b"\xe9" for c in sites)
    m.tracing.enable_event(raw, 0, True)
    m.tracing.enable_event(getuid, 0, False)
    assert all(m.read_memory(c, 1) == b"\xe9" for c in sites)
    m.tracing.enable_event(raw, 0, False)
    assert all(m.read_memory(c, 5) == image.read(c, 5) for c in sites)


def test_sys_enter_getuid_records(make_machine, image):
    m = make_machine(cpus=2)
    ids = setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    proc = run(m, ["getuid-loop", "5"])
    settle(m)
    recs = records(drain_all(m.tracing, 0))
    assert len(recs) == 5
    for _, _, payload in recs:
        assert len(payload) == 16  # struct syscall_trace_enter with no args
        type_, flags, preempt, pid = header(payload)
        assert (type_, pid) == (ids["sys_enter_getuid"], proc.pid)
        assert flags == 0 and preempt == 1  # Linux 6.1 shows `...1.` for syscalls:* events
        assert struct.unpack_from("<i", payload, 8)[0] == NR_GETUID
    times = [t for _, t, _ in recs]
    assert times == sorted(times) and len(set(times)) == 5


def test_sys_exit_and_raw_records(make_machine, image):
    m = make_machine(cpus=1)
    ids = setup_ids(m)
    ev = events_by_name(image)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(ev["sys_exit_getuid"], 0, True)
    m.tracing.enable_event(ev["sys_enter"], 0, True)
    proc = run(m, ["getuid-loop", "3"])
    settle(m)
    recs = [p for _, _, p in records(drain_all(m.tracing, 0)) if header(p)[3] == proc.pid]
    exits = [p for p in recs if header(p)[0] == ids["sys_exit_getuid"]]
    assert len(exits) == 3
    assert all(struct.unpack_from("<iiq", p, 8)[0] == NR_GETUID and len(p) == 24 for p in exits)
    assert all(struct.unpack_from("<q", p, 16)[0] == 0 for p in exits)  # uid 0
    assert all(header(p)[1:3] == (0, 1) for p in exits)  # `...1.`
    raw = [p for p in recs if header(p)[0] == ids["sys_enter"]]
    assert all(header(p)[1:3] == (0, 0) for p in raw)  # raw_syscalls: `.....` as Linux
    assert sum(struct.unpack_from("<q", p, 8)[0] == NR_GETUID for p in raw) == 3


def test_sched_switch_records(make_machine, image):
    m = make_machine(cpus=2, workload="default")
    ids = setup_ids(m)
    switch = events_by_name(image)["sched_switch"]
    fields = {f.name: f for f in switch.fields}
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(switch, 0, True)
    time.sleep(0.5)
    tasks = {t.pid: t.comm for t in m.tasks()}
    recs = records(drain_all(m.tracing, 0))
    assert len(recs) > 10

    def comm(p, name):
        f = fields[name]
        return p[f.offset:f.offset + f.size].split(b"\0")[0].decode()

    def i32(p, name):
        return struct.unpack_from("<i", p, fields[name].offset)[0]
    last_comm = {}
    for cpu, _, p in sorted(recs, key=lambda r: r[1]):
        type_, flags, preempt, pid = header(p)
        assert type_ == ids["sched_switch"]
        assert pid == i32(p, "prev_pid") != i32(p, "next_pid")
        assert flags & 0x01 and preempt == 2  # Linux shows d..2. for sched_switch
        for side in ("prev", "next"):
            task = i32(p, side + "_pid")
            if task == 0:
                assert comm(p, side + "_comm") == f"swapper/{cpu}"
            else:
                last_comm[task] = comm(p, side + "_comm")
    # a task's comm as last recorded is its comm now (exec may have changed earlier ones)
    live = {pid: c for pid, c in last_comm.items() if pid in tasks}
    assert live and all(tasks[pid] == c for pid, c in live.items())


def test_pages_equal_pagewriter(make_machine, image):
    """Re-encode the drained events with the Python spec: the bytes must match."""
    m = make_machine(cpus=2, workload="default")
    setup_ids(m)
    ev = events_by_name(image)
    m.tracing.set_recording(0, True)
    for name in ("sched_switch", "sched_wakeup", "sched_waking", "sys_enter", "sys_exit", "kmalloc", "kfree"):
        m.tracing.enable_event(ev[name], 0, True)
    pages = {}
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        drain_all(m.tracing, 0, pages)
        time.sleep(0.05)
    assert sum(p.complete for p in pages.values()) >= 4
    for (cpu, seq), page in pages.items():
        assert page.data == expected_page(page, pages.get((cpu, seq + 1))), (cpu, seq)


def expected_page(page, following=None):
    """The page PageWriter makes of the same events (closed by the next page's first event)."""
    writer = PageWriter()
    for e in decode_page(page.data).events:
        assert writer.append(e.timestamp, bytes(e.payload))
    if page.complete and following is not None:
        nxt = decode_page(following.data).events[0]
        assert not writer.append(nxt.timestamp, bytes(nxt.payload))
    return writer.ring_page()[:16 + writer.commit].ljust(4096, b"\0")


def test_time_extend_after_a_long_gap(make_machine, image):
    m = make_machine(cpus=1)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    run(m, ["getuid-loop", "2"])
    time.sleep(0.3)  # > 2^27 ns of virtual time with the CPU idle
    run(m, ["getuid-loop", "2"])
    settle(m)
    pages = drain_all(m.tracing, 0)
    (page,) = pages.values()
    events = decode_page(page.data).events
    assert [e.stamp for e in events] == [Stamp.DELTA, Stamp.DELTA, Stamp.EXTEND, Stamp.DELTA]
    assert events[2].timestamp - events[1].timestamp >= 1 << 27
    assert page.data == expected_page(page)


def test_full_ring_counts_lost(make_machine, image):
    m = make_machine(cpus=1)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    calls = 30_000  # x 20 bytes: far more than the ring holds
    run(m, ["getuid-loop", str(calls)])
    settle(m)
    pages = drain_all(m.tracing, 0)
    first = len(records(pages))
    assert 0 < first < calls and len(pages) <= m.tracing.layout.ring_pages
    run(m, ["getuid-loop", "10"])
    settle(m)
    later = drain_all(m.tracing, 0)
    lost = sum(p.lost for p in later.values())
    assert lost > 0
    assert first + lost + len(records(later)) == calls + 10


def test_a_full_ring_waits_for_a_lagging_drain(make_machine, image):
    """The ring only carries records to the host's buffer, which (as Linux's) would have room:
    a CPU that finds it full waits for the drain rather than lose them, however late the
    drain comes (within a bound: test_full_ring_counts_lost has no drain at all)."""
    m = make_machine(cpus=1)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    pages, lost, stop = {}, [0], threading.Event()

    def lagging_reader():
        while not stop.is_set():
            if m.tracing.wait_for_data(0.05):
                time.sleep(0.2)    # a busy host: the drain runs late
                for page in m.tracing.drain(0):
                    if (page.cpu, page.seq) not in pages:
                        lost[0] += page.lost
                    pages[(page.cpu, page.seq)] = page
    thread = threading.Thread(target=lagging_reader)
    thread.start()
    calls = 30_000   # x 20 bytes: several rings' worth
    try:
        run(m, ["getuid-loop", str(calls)])
        settle(m)
    finally:
        stop.set()
        thread.join()
    drain_all(m.tracing, 0, pages)
    assert lost[0] == 0
    assert len(records(pages)) == calls


def test_draining_while_the_guest_writes(make_machine, image):
    """The reader races the writer: every page it gets decodes, and each event is
    either taken exactly once or counted lost."""
    m = make_machine(cpus=1)
    ids = setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    taken, totals, stop, errors = {}, [0, 0], threading.Event(), []

    def take():
        for page in m.tracing.drain(0):
            events = decode_page(page.data).events  # raises on a torn page
            assert all(header(bytes(e.payload))[0] == ids["sys_enter_getuid"] for e in events)
            if page.seq not in taken:
                totals[1] += page.lost
            totals[0] += len(events) - taken.get(page.seq, 0)
            taken[page.seq] = len(events)

    def reader():
        try:
            while not stop.is_set():
                take()
                # As the daemon does: a reader spinning on drain() would hold the GIL the
                # machine thread's syscall hook needs.
                m.tracing.wait_for_data(0.001)
        except Exception as e:  # noqa: BLE001 - reported by the test below
            errors.append(e)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        run(m, ["getuid-loop", "5000"])
    finally:
        stop.set()
        thread.join()
    assert not errors
    settle(m)
    take()
    run(m, ["getuid-loop", "1"])  # reports any loss from the end of the first run
    settle(m)
    take()
    assert totals[0] + totals[1] == 5001 and totals[0] > 1632


def test_two_slots_each_get_the_records(make_machine, image):
    m = make_machine(cpus=2)
    getuid = events_by_name(image)["sys_enter_getuid"]
    setup_ids(m)
    m.tracing.open_slot(1)
    m.tracing.open_slot(2)
    for slot in (0, 1, 2):
        m.tracing.enable_event(getuid, slot, True)
    m.tracing.set_recording(0, True)
    m.tracing.set_recording(1, True)  # slot 2 has it enabled but is not recording
    run(m, ["getuid-loop", "7"])
    settle(m)
    assert len(records(drain_all(m.tracing, 0))) == 7
    assert len(records(drain_all(m.tracing, 1))) == 7
    assert records(drain_all(m.tracing, 2)) == []


def test_full_first_slot_does_not_starve_the_next(make_machine, image):
    # the record is filled in place in the first slot with room; a full ring
    # before it counts the event lost there and the next slot still gets it
    m = make_machine(cpus=1)
    getuid = events_by_name(image)["sys_enter_getuid"]
    setup_ids(m)
    m.tracing.open_slot(1)
    for slot in (0, 1):
        m.tracing.enable_event(getuid, slot, True)
    m.tracing.set_recording(0, True)
    calls = 30_000
    run(m, ["getuid-loop", str(calls)])  # fills slot 0's ring, never drained
    settle(m)
    m.tracing.set_recording(1, True)
    run(m, ["getuid-loop", "7"])
    settle(m)
    assert len(records(drain_all(m.tracing, 1))) == 7
    pages = drain_all(m.tracing, 0)
    first = len(records(pages))
    assert 0 < first < calls
    run(m, ["getuid-loop", "1"])
    settle(m)
    later = drain_all(m.tracing, 0)
    assert first + sum(p.lost for p in later.values()) + len(records(later)) == calls + 8


def test_reset_forgets_undrained(make_machine, image):
    m = make_machine(cpus=1)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    run(m, ["getuid-loop", "5"])
    settle(m)
    m.tracing.reset(0)
    assert records(drain_all(m.tracing, 0)) == []
    run(m, ["getuid-loop", "3"])
    settle(m)
    assert len(records(drain_all(m.tracing, 0))) == 3


def test_wait_for_data(make_machine, image):
    m = make_machine(cpus=1)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(events_by_name(image)["sys_enter_getuid"], 0, True)
    m.tracing.drain(0)
    assert not m.tracing.wait_for_data(0.2)
    run(m, ["getuid-loop", "2"])
    assert m.tracing.wait_for_data(5)
    assert len(records(drain_all(m.tracing, 0))) == 2


@pytest.mark.parametrize("seed", [5])
def test_seeded_trace_is_deterministic(vmlinux, seed):
    """Enabled before start (written at attach): two runs record the same pages."""
    def trace():
        m = Machine(MachineOptions(cpus=2, seed=seed, workload="default", kernel_image=vmlinux))
        try:
            setup_ids(m)
            m.tracing.set_recording(0, True)
            m.tracing.enable_event(events_by_name(m.image)["sched_switch"], 0, True)
            m.start()  # a seeded machine's drain acts at its pause after boot
            return [(p.cpu, p.seq, p.data) for p in m.tracing.drain(0)]
        finally:
            m.stop()
    a, b = trace(), trace()
    assert a and a == b


def test_seeded_commands_give_identical_traces(vmlinux):
    """Enable events on the running machine, run a program, drain: a seeded
    machine does each at a deterministic point, so the pages are identical."""
    def trace(host_delay):
        m = Machine(MachineOptions(cpus=2, seed=11, workload="default", kernel_image=vmlinux))
        try:
            m.start()
            time.sleep(host_delay)  # how long the host takes between commands must not matter
            ids = setup_ids(m)
            m.tracing.set_recording(0, True)
            ev = events_by_name(m.image)
            for name in ("sched_switch", "sys_enter", "sys_exit"):
                m.tracing.enable_event(ev[name], 0, True)
            time.sleep(host_delay)
            proc = m.spawn(["getuid-loop", "20"])
            assert proc.wait(30) == 0
            time.sleep(host_delay)
            pages = drain_all(m.tracing, 0)
            return proc.pid, ids, [(p.cpu, p.seq, p.data, p.lost) for _, p in sorted(pages.items())]
        finally:
            m.stop()
    pid, ids, a = trace(0)
    assert trace(0.3)[2] == a
    payloads = [bytes(e.payload) for _, _, data, _ in a for e in decode_page(data).events]
    getuids = [p for p in payloads if header(p)[0] == ids["sys_enter"] and header(p)[3] == pid
               and struct.unpack_from("<q", p, 8)[0] == NR_GETUID]
    assert len(getuids) == 20


def test_exiting_task_switches_out_as_zombie(make_machine, image):
    """A program's last switch reports EXIT_ZOMBIE (`Z`), as under Linux when the
    shell that started it waits for it."""
    m = make_machine(cpus=2)
    ids = setup_ids(m)
    switch = events_by_name(image)["sched_switch"]
    state = next(f for f in switch.fields if f.name == "prev_state")
    prev_pid = next(f for f in switch.fields if f.name == "prev_pid")
    m.tracing.set_recording(0, True)
    m.tracing.enable_event(switch, 0, True)
    pid = run(m, ["getuid-loop", "3"]).pid
    settle(m)
    mine = [p for _, _, p in sorted(records(drain_all(m.tracing, 0)), key=lambda r: r[1])
            if header(p)[0] == ids["sched_switch"]
            and struct.unpack_from("<i", p, prev_pid.offset)[0] == pid]
    assert mine
    EXIT_ZOMBIE = 0x20
    assert struct.unpack_from("<q", mine[-1], state.offset)[0] == EXIT_ZOMBIE


def test_saved_comms_name_exited_tasks(make_machine, image):
    """While an event is enabled the guest saves comms at switches (Linux's
    saved_cmdlines): an exited program keeps its name there."""
    m = make_machine(cpus=2)
    setup_ids(m)
    m.tracing.set_recording(0, True)
    pid = run(m, ["getuid-loop", "1"]).pid
    assert pid not in m.tracing.saved_comms()  # nothing enabled: nothing saved
    m.tracing.enable_event(events_by_name(image)["sys_enter"], 0, True)
    pid = run(m, ["getuid-loop", "1"]).pid
    settle(m)
    assert pid not in {t.pid for t in m.tasks()}
    saved = m.tracing.saved_comms()
    assert saved[pid] == "getuid-loop"
    assert 0 not in saved
    key = m.image.addr("trace_cmdline_key")
    sites = [e.code for e in image.jump_entries if e.key == key]
    assert sites and all(m.read_memory(c, 1) == b"\xe9" for c in sites)
    m.tracing.enable_event(events_by_name(image)["sys_enter"], 0, False)
    assert all(m.read_memory(c, 5) == image.read(c, 5) for c in sites)


def test_cpumask_keeps_a_slot_to_its_cpus(make_machine, image):
    """tracing_cpumask: slot 0 records on CPU 1 only, slot 1 everywhere."""
    m = make_machine(cpus=2)
    switch = events_by_name(image)["sched_switch"]
    setup_ids(m)
    m.tracing.open_slot(1)
    for slot in (0, 1):
        m.tracing.enable_event(switch, slot, True)
        m.tracing.set_recording(slot, True)
    m.tracing.set_cpumask(0, 0b10)
    run(m, ["getuid-loop", "200"])
    settle(m)
    only_cpu1 = {cpu for cpu, _, _ in records(drain_all(m.tracing, 0))}
    everywhere = {cpu for cpu, _, _ in records(drain_all(m.tracing, 1))}
    assert only_cpu1 == {1} and everywhere == {0, 1}


def ring_pages(m, slot):
    """Each cpu's ring page base of a slot (0: none), from trace_control."""
    lay = m.tracing.layout
    control = m.image.addr("trace_control")
    return [struct.unpack("<Q", m.read_memory(control + lay.ring(slot, cpu) + lay.ring_page_base, 8))[0]
            for cpu in range(lay.nr_cpus)]


def pid_bitmaps(m, slot):
    control = m.image.addr("trace_pid_control")
    a = m.image.abi_value
    return [struct.unpack("<Q", m.read_memory(control + a(f"trace_pid_control.{name}") + 8 * slot, 8))[0]
            for name in ("pids", "notrace_pids")]


def free_pages(m):
    """vm_zone_stat[NR_FREE_PAGES] (NR_FREE_PAGES is its first)"""
    return struct.unpack("<q", m.read_memory(m.image.addr("vm_zone_stat"), 8))[0]


def test_an_instance_slot_has_the_kernels_memory_while_open(make_machine, image):
    """open_slot(): the kernel allocates a ring for each online cpu and the pid bitmaps
    (instance_mkdir()'s allocate_trace_buffers()); the slot records; close_slot() gives
    them back (after a grace period)."""
    m = make_machine(cpus=2)
    lay = m.tracing.layout
    assert all(ring_pages(m, 0)) and all(pid_bitmaps(m, 0))    # the top level's: static
    assert not any(ring_pages(m, 9)) and not any(pid_bitmaps(m, 9))
    with pytest.raises(ValueError):
        m.tracing.set_recording(9, True)                        # no buffers: nothing may write there
    before = free_pages(m)
    m.tracing.open_slot(9)
    pages = ring_pages(m, 9)
    assert all(pages[:2]) and not any(pages[2:])                # the online cpus' only
    assert all(pid_bitmaps(m, 9))
    assert before - free_pages(m) >= 2 * lay.ring_pages + 2
    getuid = events_by_name(image)["sys_enter_getuid"]
    setup_ids(m)
    m.tracing.enable_event(getuid, 9, True)
    m.tracing.set_recording(9, True)
    m.tracing.pid_lists.set_event_pids(9, False, frozenset({1}))   # a list that lets none through
    run(m, ["getuid-loop", "3"])
    settle(m)
    assert records(drain_all(m.tracing, 9)) == []
    m.tracing.pid_lists.set_event_pids(9, False, None)
    run(m, ["getuid-loop", "5"])
    settle(m)
    assert len(records(drain_all(m.tracing, 9))) == 5
    m.tracing.set_cpumask(9, 0b10)
    m.tracing.enable_event(getuid, 9, False)
    m.tracing.set_recording(9, False)
    m.tracing.close_slot(9)
    assert not any(ring_pages(m, 9)) and not any(pid_bitmaps(m, 9))
    deadline = time.monotonic() + 20
    while free_pages(m) < before - 16 and time.monotonic() < deadline:   # call_rcu frees them
        time.sleep(0.05)
    assert free_pages(m) >= before - 16
    # the slot opens again, its rings empty, every cpu in its mask
    m.tracing.open_slot(9)
    cpu_slots = m.image.addr("trace_control") + lay.control_cpu_slots
    assert all(struct.unpack("<Q", m.read_memory(cpu_slots + 8 * cpu, 8))[0] >> 9 & 1 for cpu in range(2))
    m.tracing.enable_event(getuid, 9, True)
    m.tracing.set_recording(9, True)
    run(m, ["getuid-loop", "2"])
    settle(m)
    assert len(records(drain_all(m.tracing, 9))) == 2


def test_no_memory_for_an_instance_is_enomem_and_allocates_nothing(make_machine):
    """A kernel short of memory fails the allocation (ENOMEM, no OOM kill: 6.1's ring buffer
    allocates with __GFP_RETRY_MAYFAIL) and keeps nothing of it."""
    m = make_machine(cpus=8, memory_mb=96)
    opened = []
    with pytest.raises(OSError) as failed:
        for slot in range(1, 64):
            m.tracing.open_slot(slot)
            opened.append(slot)
    assert failed.value.errno == errno.ENOMEM
    assert 0 < len(opened) < 63
    slot = opened[-1] + 1
    assert not any(ring_pages(m, slot)) and not any(pid_bitmaps(m, slot))
    before = free_pages(m)
    with pytest.raises(OSError):
        m.tracing.open_slot(slot)
    assert abs(free_pages(m) - before) < 64       # (the kernel's own work meanwhile aside)
    assert b"Out of memory" not in m.console_output()
    m.tracing.close_slot(opened[0])
    deadline = time.monotonic() + 20
    while True:                                   # its memory is back after a grace period
        try:
            m.tracing.open_slot(slot)
            break
        except OSError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert all(ring_pages(m, slot))


def ext_ring_pages(m, slot):
    """Each cpu's ring page base of an extension slot (slot >= 64; 0: none), through
    trace_control.ext_rings."""
    lay = m.tracing.layout
    control = m.image.addr("trace_control")
    rings = struct.unpack("<Q", m.read_memory(control + lay.control_ext_rings + 8 * slot, 8))[0]
    if not rings:
        return [0] * lay.nr_cpus
    return [struct.unpack("<Q", m.read_memory(rings + cpu * lay.ring_size + lay.ring_page_base, 8))[0]
            for cpu in range(lay.nr_cpus)]


def test_extension_slots_record_their_own_events(make_machine, image):
    """Slots past word 0 of the masks (64..TRACE_SLOTS-1): their bits in the extension words,
    word 0's summary bit sending the writers to the slow path, which records in each; their
    rings the kernel's allocation, given back when the slot closes; slot 63 is no slot."""
    m = make_machine(cpus=2)
    lay = m.tracing.layout
    last = lay.slots - 1
    getuid = events_by_name(image)["sys_enter_getuid"]
    setup_ids(m)
    with pytest.raises(ValueError):
        m.tracing.open_slot(lay.slot_ext)
    for slot in (1, 64, 130, last):
        m.tracing.open_slot(slot)
    assert all(ext_ring_pages(m, last)[:2]) and not any(ext_ring_pages(m, last)[2:])
    for slot in (0, 1, 64, 130, last):
        m.tracing.enable_event(getuid, slot, True)
    for slot in (0, 1, 64, last):
        m.tracing.set_recording(slot, True)    # 130 has it enabled but is not recording
    assert m.tracing.is_recording(64) and not m.tracing.is_recording(130)
    assert m.tracing.event_recording(getuid, last)
    run(m, ["getuid-loop", "7"])
    settle(m)
    pages = {slot: drain_all(m.tracing, slot) for slot in (0, 1, 64, 130, last)}
    for slot in (0, 1, 64, last):
        got = records(pages[slot])
        assert len(got) == 7, slot
        assert {header(p)[0] for _, _, p in got} == {setup_ids(m)["sys_enter_getuid"]}
    assert records(pages[130]) == []

    # an extension slot alone (word 0 of the event's file holds the summary bit only), on cpu 1
    for slot in (0, 1, 64):
        m.tracing.enable_event(getuid, slot, False)
    m.tracing.set_cpumask(last, 0b10)
    run(m, ["getuid-loop", "200"])
    settle(m)
    for slot in (0, 64):
        assert len(records(drain_all(m.tracing, slot, pages[slot]))) == 7
    got = records(drain_all(m.tracing, last, pages[last]))[7:]
    assert len(got) <= 200 and {cpu for cpu, _, _ in got} <= {1}

    # closed: the rings go back, the slot opens again empty
    m.tracing.set_cpumask(last, 0b11)
    m.tracing.enable_event(getuid, last, False)
    m.tracing.set_recording(last, False)
    m.tracing.close_slot(last)
    assert not any(ext_ring_pages(m, last))
    m.tracing.open_slot(last)
    m.tracing.enable_event(getuid, last, True)
    m.tracing.set_recording(last, True)
    run(m, ["getuid-loop", "3"])
    settle(m)
    assert len(records(drain_all(m.tracing, last))) == 3


class _Count:
    def __init__(self, value):
        self.value = value


def test_triggers_act_on_extension_slots(make_machine, image):
    """Event triggers of a slot past word 0 (struct event_trigger's u16 slot; the event file's
    triggers word holds the summary bit): stacktrace writes its stack in that slot's rings,
    enable_event flips the target's bit in its extension words, snapshot asks for the slot's,
    traceoff clears the slot's recording bit; slot 1 beside them sees none of it."""
    from tracefs_sim.machine.contract import GuestTrigger

    m = make_machine(cpus=2)
    by_name = events_by_name(image)
    enter, exit_ = by_name["sys_enter_getuid"], by_name["sys_exit_getuid"]
    ids = setup_ids(m)
    ext = 130
    for slot in (1, ext):
        m.tracing.open_slot(slot)
        m.tracing.set_recording(slot, True)
        m.tracing.enable_event(enter, slot, True)
    m.tracing.enable_event(exit_, ext, True)
    m.tracing.set_event_soft_disabled(exit_, ext, True)   # until enable_event's trigger
    assert not m.tracing.event_recording(exit_, ext)
    trig = m.tracing.triggers

    def on_enter(cmd, **kw):
        return GuestTrigger(enter, ids["sys_enter_getuid"], cmd, ext, **kw)
    trig.set_triggers([on_enter("stacktrace", count=_Count(2), post=True, cond=True),
                       on_enter("snapshot", count=_Count(1)),
                       on_enter("enable_event", count=_Count(1), target=exit_, target_id=ids["sys_exit_getuid"])])
    run(m, ["getuid-loop", "5"])
    settle(m)
    assert m.tracing.event_recording(exit_, ext)
    pages = drain_all(m.tracing, ext)
    got = records(pages)
    types = [header(p)[0] for _, _, p in got]
    assert types.count(ids["sys_enter_getuid"]) == 5
    assert types.count(4) == 2                            # TRACE_STACK: the count's two
    assert types.count(ids["sys_exit_getuid"]) in (4, 5)  # from the first enter on
    assert len(trig.snapshot_requests(ext)) == 1
    plain = [header(p)[0] for _, _, p in records(drain_all(m.tracing, 1))]
    assert plain == [ids["sys_enter_getuid"]] * 5 and trig.snapshot_requests(1) == []

    # traceoff: the slot's recording bit (an extension word's), word 0's summary bit following it
    trig.set_triggers([on_enter("traceoff", count=_Count(1))])
    run(m, ["getuid-loop", "3"])
    settle(m)
    assert not m.tracing.is_recording(ext) and m.tracing.is_recording(1)
    lay = m.tracing.layout
    recording = struct.unpack("<Q", m.read_memory(m.image.addr("trace_control") + lay.control_recording, 8))[0]
    assert recording >> lay.slot_ext & 1 == 0
    assert records(drain_all(m.tracing, ext, pages)) == got   # nothing after the traceoff
    trig.set_triggers([])


def test_stack_options_of_an_extension_slot(make_machine, image):
    """options/stacktrace and userstacktrace of a slot past word 0 (stack_opts' extension
    words): its events are followed by their stacks in its own rings, and a slot of word 0
    recording the same events gets only its own options' stacks."""
    m = make_machine(cpus=2)
    getuid = events_by_name(image)["sys_enter_getuid"]
    ids = setup_ids(m)
    for slot in (1, 300):
        m.tracing.open_slot(slot)
        m.tracing.set_recording(slot, True)
        m.tracing.enable_event(getuid, slot, True)
    m.tracing.set_stack_options(300, True, True)
    run(m, ["getuid-loop", "4"])
    settle(m)
    ext = [header(p)[0] for _, _, p in records(drain_all(m.tracing, 300))]
    assert ext == [ids["sys_enter_getuid"], 4, 12] * 4     # the event, TRACE_STACK, TRACE_USER_STACK
    pages1 = drain_all(m.tracing, 1)
    assert [header(p)[0] for _, _, p in records(pages1)] == [ids["sys_enter_getuid"]] * 4
    # the other way round: word 0's slot takes stacks, the extension slot none (its words cleared)
    m.tracing.set_stack_options(300, False, False)
    m.tracing.set_stack_options(1, True, False)
    run(m, ["getuid-loop", "2"])
    settle(m)
    assert [header(p)[0] for _, _, p in records(drain_all(m.tracing, 1, pages1))][4:] == [ids["sys_enter_getuid"], 4] * 2
    pages300 = drain_all(m.tracing, 300)
    assert [header(p)[0] for _, _, p in records(pages300)] == ext + [ids["sys_enter_getuid"]] * 2


def test_pid_lists_of_an_extension_slot(make_machine, image):
    """set_event_pid / set_event_notrace_pid of a slot past word 0 (its bitmaps allocated with
    its rings, the masks' extension words): the slot records only what its lists let through,
    a slot of word 0 beside it everything."""
    m = make_machine(cpus=2)
    getuid = events_by_name(image)["sys_enter_getuid"]
    setup_ids(m)
    ext = 300
    for slot in (1, ext):
        m.tracing.open_slot(slot)
        m.tracing.set_recording(slot, True)
        m.tracing.enable_event(getuid, slot, True)
    pids = m.tracing.pid_lists
    pids.set_event_pids(ext, False, frozenset({1}))     # init's events only
    run(m, ["getuid-loop", "3"])
    settle(m)
    assert len(records(drain_all(m.tracing, 1))) == 3
    assert records(drain_all(m.tracing, ext)) == []
    pids.set_event_pids(ext, False, None)
    pids.set_event_pids(ext, True, frozenset({1}))      # all but init's
    run(m, ["getuid-loop", "2"])
    settle(m)
    assert len(records(drain_all(m.tracing, ext))) == 2
    assert pids.event_pids(ext, True) == frozenset({1})
    # closed and made again: no lists
    pids.set_event_pids(ext, True, None)
    m.tracing.enable_event(getuid, ext, False)
    m.tracing.set_recording(ext, False)
    m.tracing.close_slot(ext)
    m.tracing.open_slot(ext)
    assert pids.event_pids(ext, False) is None and pids.event_pids(ext, True) is None
