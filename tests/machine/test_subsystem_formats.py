"""The kernel-internal subsystems' tracepoints (lock, irq, timer, workqueue, kmem, task, sched,
rcu, printk, exceptions, block, filemap, writeback, mmap, mmap_lock, oom, vmscan, power, nmi), the network's (sock, tcp, net, napi,
skb) and the file locks' (filelock): every format file byte for byte as Linux 6.1's, but for the ID line."""
import re
from pathlib import Path

import pytest

from tracefs_sim.trace.events import EventRegistry

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "linux-6.1-formats-subsystems.txt"
SYSTEMS = ("lock", "irq", "irq_vectors", "timer", "workqueue", "kmem", "task", "sched", "rcu", "printk",
           "exceptions", "block", "filemap", "writeback", "mmap", "mmap_lock", "oom", "vmscan", "power", "nmi", "sock", "tcp", "net", "napi", "skb",
           "filelock")


def reference_formats() -> dict[str, str]:
    """'system/name' -> the whole format file of the reference kernel."""
    blocks = re.split(r"^=== ", REFERENCE.read_text(), flags=re.M)[1:]
    return {head.strip(): body for head, _, body in (b.partition("\n") for b in blocks)}


def without_id(text: str) -> str:
    return re.sub(r"^ID: \d+\n", "", text, flags=re.M)


@pytest.fixture(scope="module")
def registry(image):
    # (writeback's formats print the age of an inode from the kernel's jiffies)
    return EventRegistry(image.events, kernel_variables={"jiffies": lambda: 0})


def test_every_subsystem_has_events(image):
    present = {e.system for e in image.events}
    assert set(SYSTEMS) <= present, set(SYSTEMS) - present


@pytest.mark.parametrize("system", SYSTEMS)
def test_formats_are_linux_6_1s(registry, system):
    real = reference_formats()
    events = registry.events(system)
    assert events
    for event in events:
        key = f"{system}/{event.name}"
        assert key in real, f"{key}: not an event of Linux 6.1"
        assert without_id(event.format_text()) == without_id(real[key]), key


@pytest.mark.parametrize("system", SYSTEMS)
def test_print_fmts_compile(registry, system):
    """The trace core can print every record of these events (its print fmt evaluator knows
    every helper, type and name the format uses)."""
    for event in registry.events(system):
        assert event.print_fmt.function is not None, event.name
