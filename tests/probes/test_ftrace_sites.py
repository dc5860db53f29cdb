"""FtraceSites: which sites it patches, when, and what it writes for the guest."""
import struct

import pytest

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.probes import FtraceSites

NONE = frozenset()


@pytest.fixture
def new_machine(vmlinux):
    machines = []

    def make():
        m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=2, seed=3))
        machines.append(m)
        return m
    yield make
    for m in machines:
        m.stop()


def call_bytes(machine, site, trampoline="ftrace_caller"):
    rel = machine.image.addr(trampoline) - (site + 5)
    return b"\xe8" + rel.to_bytes(4, "little", signed=True)


def site_state(machine, sites, name):
    """The state in the site's ftrace_site_map entry (found from its address)."""
    lay = sites.layout
    slot = (sites.address(name) - machine.image.addr("_stext")) // lay.map_grain
    raw = machine.read_memory(machine.image.addr("ftrace_site_map") + lay.map_entry_size * slot, 24)
    fn, graph, flags, kprobe, graphed = struct.unpack_from("<QQBBB", raw)
    assert graphed == int(graph != 0)   # the dispatcher's fast path reads this, not graph
    return fn, graph, flags, kprobe


def test_functions_are_the_mcount_sites_in_address_order(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    addrs = [sites.address(n) for n in sites.functions]
    assert addrs == sorted(addrs)
    assert set(sites.functions) == set(m.image.mcount_sites)
    assert sites.address("vfs_read") == m.image.mcount_sites["vfs_read"]
    with pytest.raises(KeyError):
        sites.address("no_such_function")


def test_state_set_before_start_reaches_the_guest(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    sites.set_function(1, frozenset({"vfs_read"}))
    sites.set_stack_trace(1, True)
    assert sites.patched_count == 1
    m.start()
    site = sites.address("vfs_read")
    assert m.read_memory(site, 5) == call_bytes(m, site)
    assert site_state(m, sites, "vfs_read") == (0b10, 0, 0, 0)
    control = m.image.addr("ftrace_control")
    assert struct.unpack("<Q", m.read_memory(control + sites.layout.control_stack_trace, 8))[0] == 0b10
    assert struct.unpack("<Q", m.read_memory(control + sites.layout.control_slow_slots, 8))[0] == 0b10


def test_only_changed_sites_are_patched_in_one_batch(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    m.start()
    batches = []
    real = m.text_poke_batch
    m.text_poke_batch = lambda patches: (batches.append(list(patches)), real(patches))
    sites.set_function(0, frozenset({"vfs_read", "ksys_read"}))
    sites.set_function(0, frozenset({"ksys_read", "ksys_write"}))
    # a second user of an enabled site changes its state, not its code
    sites.set_graph(0, frozenset({"ksys_read"}), graph_functions=NONE, graph_notrace=NONE)
    sites.set_max_graph_depth(3)  # no site changes
    first, second = batches[0], batches[1]
    assert {a for a, _ in first} == {sites.address("vfs_read"), sites.address("ksys_read")}
    vfs, write = sites.address("vfs_read"), sites.address("ksys_write")
    assert dict(second) == {vfs: m.image.read(vfs, 5), write: call_bytes(m, write)}
    assert len(batches) == 2
    assert site_state(m, sites, "ksys_read") == (1, 1, 0, 0)
    assert site_state(m, sites, "vfs_read") == (0, 0, 0, 0)


def test_enabled_functions_and_refcounts(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    m.start()
    sites.set_function(0, frozenset({"vfs_read", "ksys_read"}))
    sites.set_function(3, frozenset({"vfs_read"}))
    sites.set_graph(0, frozenset({"vfs_read"}), graph_functions=frozenset({"vfs_read"}),
                    graph_notrace=frozenset({"ksys_write"}))
    sites.set_kprobe("vfs_read", True)
    assert sites.enabled() == [("vfs_read", 4, " R    "), ("ksys_read", 1, "      ")]  # address order
    # set_graph_notrace alone does not enable a site: only the flag is written
    assert site_state(m, sites, "ksys_write") == (0, 0, 2, 0)
    assert site_state(m, sites, "vfs_read") == (0b1001, 1, 1, 1)
    # a kprobe's site calls the trampoline that saves the whole pt_regs, the others ftrace_caller
    vfs, ksys = sites.address("vfs_read"), sites.address("ksys_read")
    assert m.read_memory(vfs, 5) == call_bytes(m, vfs, "ftrace_regs_caller")
    assert m.read_memory(ksys, 5) == call_bytes(m, ksys)
    sites.set_kprobe("vfs_read", False)
    assert m.read_memory(vfs, 5) == call_bytes(m, vfs)
    sites.set_graph(0, None, graph_functions=NONE, graph_notrace=NONE)
    sites.set_function(3, None)
    sites.set_function(0, None)
    assert sites.enabled() == [] and sites.patched_count == 0
    start, end = m.image.text_range
    assert m.read_memory(start, end - start) == m.image.read(start, end - start)


def test_bad_input_changes_nothing(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    m.start()
    sites.set_function(0, frozenset({"vfs_read"}))
    with pytest.raises(KeyError):
        sites.set_function(0, frozenset({"vfs_read", "nope"}))
    for slot in (63, m.image.abi_value("TRACE_SLOTS")):   # word 0's summary bit; past the last slot
        with pytest.raises(ValueError):
            sites.set_function(slot, frozenset({"ksys_read"}))
    with pytest.raises(ValueError):
        sites.set_pids(0, frozenset(range(1, 66)), NONE)
    with pytest.raises(KeyError):
        sites.set_kprobe("nope", True)
    assert [e[0] for e in sites.enabled()] == ["vfs_read"]


def test_pids_are_written_for_the_guest(new_machine):
    m = new_machine()
    sites = FtraceSites(m)
    m.start()
    sites.set_pids(2, frozenset({5, 7}), frozenset({9}))
    lay = sites.layout
    base = m.image.addr("ftrace_control") + lay.slot_state(2)
    nr, nr_not = struct.unpack("<II", m.read_memory(base, 8))
    assert (nr, nr_not) == (2, 1)
    assert struct.unpack("<2i", m.read_memory(base + lay.slot_pids, 8)) == (5, 7)
    assert struct.unpack("<i", m.read_memory(base + lay.slot_notrace_pids, 4)) == (9,)
    filtered = m.image.addr("ftrace_control") + lay.control_pid_filtered
    assert struct.unpack("<I", m.read_memory(filtered, 4))[0] == 0b100
    slow = m.image.addr("ftrace_control") + lay.control_slow_slots
    assert struct.unpack("<I", m.read_memory(slow, 4))[0] == 0b100
    sites.set_pids(2, NONE, NONE)
    assert struct.unpack("<II", m.read_memory(base, 8)) == (0, 0)
    assert struct.unpack("<I", m.read_memory(filtered, 4))[0] == 0
    assert struct.unpack("<I", m.read_memory(slow, 4))[0] == 0
