"""The machine's NVMe-like disk on its own (native/nvme.c through machine/nvme.py): a queue pair
laid out in RAM by hand, commands fetched at the doorbell, data moved, completions posted in
order when their service time has passed, with the phase bit, and the interrupt to raise."""
import struct

from tracefs_sim.machine.image import KERNEL_MAP
from tracefs_sim.machine.nvme import NEVER, NvmeDisk
from tracefs_sim.machine.paging import PhysMem

BAR, SQ, CQ, DATA = 0x1000, 0x2000, 0x3000, 0x4000
CMD_NS = 20_000  # NVME_CMD_NS
VECTOR = 0x21


def setup(size=1 << 20):
    mem = PhysMem(1 << 20)
    disk = NvmeDisk(KERNEL_MAP + BAR, mem, size)
    mem.write(BAR, struct.pack("<QQIIIIQQ", SQ, CQ, 1, 0, 0, 0, 1, VECTOR))  # enabled, MSI on cpu 1
    assert disk.poll(0) is None  # CC.EN seen: ready, queues empty
    assert mem.read(BAR + 56, 4) == b"\1\0\0\0"
    return mem, disk


def submit(mem, slot, opcode, cid, slba=0, blocks=0, prp1=0, prp2=0):
    mem.write(SQ + 64 * slot, struct.pack("<BBHIIIQQQQHHIIHH", opcode, 0, cid, 1, 0, 0, 0, prp1, prp2, slba,
                                          blocks - 1 if blocks else 0, 0, 0, 0, 0, 0))
    mem.write(BAR + 20, struct.pack("<I", slot + 1))  # the SQ tail doorbell


def cqe(mem, i):
    result, sq_head, sq_id, cid, status = struct.unpack("<QHHHH", mem.read(CQ + 16 * i, 16))
    return cid, status >> 1, status & 1, sq_head


def test_a_write_then_a_read_move_the_data_and_complete_in_order():
    mem, disk = setup()
    mem.write(DATA, bytes(range(256)) * 16)
    submit(mem, 0, 0x01, cid=7, slba=8, blocks=8, prp1=DATA)  # write 4 KiB at byte 4096
    assert disk.poll(1000) is None  # fetched, not done yet
    due = disk.next_event()
    assert due == 1000 + CMD_NS + 4096 * 500 // 1000
    assert disk.read(4096, 4096) == bytes(range(256)) * 16  # moved at fetch
    submit(mem, 1, 0x02, cid=9, slba=8, blocks=1, prp1=DATA + 0x1000)  # read 512 bytes back
    assert disk.poll(due) == (1, VECTOR)  # the write's completion, then the interrupt
    assert cqe(mem, 0) == (7, 0, 1, 1) and cqe(mem, 1)[2] == 0  # the read's is not posted yet
    assert disk.poll(disk.next_event()) == (1, VECTOR)
    assert cqe(mem, 1) == (9, 0, 1, 2)
    assert mem.read(DATA + 0x1000, 512) == bytes(range(256)) * 2
    assert disk.next_event() == NEVER


def test_bad_commands_complete_with_an_error_status():
    mem, disk = setup(size=1 << 16)
    submit(mem, 0, 0x01, cid=1, slba=1 << 20, blocks=1, prp1=DATA)  # past the namespace
    submit(mem, 1, 0x7F, cid=2)  # no such opcode
    submit(mem, 2, 0x02, cid=3, slba=0, blocks=16, prp1=DATA + 8, prp2=DATA + 0x1008)  # PRP2 not page aligned
    submit(mem, 3, 0x00, cid=4)  # a flush
    assert disk.poll(10**9) is None  # fetched: each done a service time later
    assert disk.poll(10**10) == (1, VECTOR)
    assert [cqe(mem, i)[:2] for i in range(4)] == [(1, 0x80), (2, 0x1), (3, 0x2), (4, 0)]


def test_the_phase_bit_flips_when_the_completion_queue_wraps():
    mem, disk = setup()
    now = 0
    for n in range(70):
        slot = n % 64
        submit(mem, slot, 0x00, cid=n)
        mem.write(BAR + 20, struct.pack("<I", (n + 1) % 64))
        now += 10**6
        assert disk.poll(now) is None
        assert disk.poll(now + CMD_NS) == (1, VECTOR)
        mem.write(BAR + 24, struct.pack("<I", (n + 1) % 64))  # consumed: the CQ head doorbell
    assert cqe(mem, 63)[:3] == (63, 0, 1)
    assert cqe(mem, 5)[:3] == (69, 0, 0)  # the second lap's phase
