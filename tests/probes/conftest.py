"""Fixtures of the probe tests that need the whole tracing stack on a running machine."""
import pytest

from tracefs_sim.fs import build_tree
from tracefs_sim.machine.machine import Machine, MachineOptions
from tracefs_sim.stack import build_stack


@pytest.fixture
def traced(vmlinux):
    """traced(cpus, workload, seed) -> (machine, core, fs tree): a seeded machine with the
    tracing stack and its file tree (no mount); stopped at the end of the test."""
    machines = []

    def make(cpus: int, workload: str, seed: int):
        m = Machine(MachineOptions(cpus=cpus, workload=workload, seed=seed))
        m.start()
        machines.append(m)
        stack = build_stack(m)
        return m, stack.core, build_tree(stack.core)
    try:
        yield make
    finally:
        for m in machines:
            m.stop()
