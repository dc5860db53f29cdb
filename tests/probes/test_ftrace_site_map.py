"""ftrace_site_map: the guest dispatcher's way from a site's address to its entry (index and state)."""
import struct

import pytest

from tracefs_sim.machine import Machine, MachineOptions
from tracefs_sim.probes import FtraceSites
from tracefs_sim.probes.ftrace import FtraceLayout


@pytest.fixture
def machine(vmlinux):
    m = Machine(MachineOptions(kernel_image=vmlinux, workload="none", cpus=1, seed=5))
    yield m
    m.stop()


def read_map(m):
    """(state, index + 1) of every entry."""
    lay = FtraceLayout.of(m.image)
    raw = m.read_memory(m.image.addr("ftrace_site_map"), lay.map_entry_size * lay.map_entries)
    return [(struct.unpack_from("<QQBB", raw, at), struct.unpack_from("<H", raw, at + lay.map_entry_index)[0])
            for at in range(0, len(raw), lay.map_entry_size)]


@pytest.mark.parametrize("started_first", [False, True])
def test_every_site_maps_to_its_index_and_nothing_else_maps(machine, started_first):
    """Written whether the sites are set up before or after the machine starts."""
    if started_first:
        machine.start()
    sites = FtraceSites(machine)
    sites.set_function(2, frozenset({"vfs_read"}))
    if not started_first:
        machine.start()
    img = machine.image
    start, stop = img.addr("__start_mcount_loc"), img.addr("__stop_mcount_loc")
    init_start, init_end = img.init_text_range   # (the __init functions' records are gone)
    addrs = [a for (a,) in struct.iter_unpack("<Q", img.read(start, stop - start)) if not init_start <= a < init_end]
    text = img.addr("_stext")
    table = read_map(machine)
    expected = {(addr - text) // sites.layout.map_grain: i + 1 for i, addr in enumerate(addrs)}
    assert len(expected) == len(addrs) == len(sites.functions)
    assert {slot: index for slot, (_, index) in enumerate(table) if index} == expected
    # the state sits in the site's own entry; entries without a site hold none
    vfs_read = (sites.address("vfs_read") - text) // sites.layout.map_grain
    assert {slot: state for slot, (state, _) in enumerate(table) if any(state)} == {vfs_read: (0b100, 0, 0, 0)}

