"""Machine tests: the kernel image is built once per session (make is incremental)."""
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def vmlinux() -> str:
    subprocess.run(["make", "-s", "-C", str(REPO / "kernel_model")], check=True, timeout=300)
    return str(REPO / "kernel_model" / "build" / "vmlinux")


@pytest.fixture(scope="session")
def image(vmlinux):
    from tracefs_sim.machine import KernelImage
    return KernelImage(vmlinux)


@pytest.fixture
def make_machine(vmlinux):
    """Factory for started machines; every machine is stopped at teardown."""
    from tracefs_sim.machine import Machine, MachineOptions
    machines = []

    def make(**kw):
        kw.setdefault("workload", "none")
        m = Machine(MachineOptions(kernel_image=vmlinux, **kw))
        machines.append(m)
        m.start()
        return m
    yield make
    for m in machines:
        m.stop()


@pytest.fixture
def run_program():
    """run_program(machine, argv) -> (exit status, output bytes)."""
    def run(machine, argv, timeout=30.0):
        out = []
        proc = machine.spawn(argv, out.append)
        status = proc.wait(timeout)
        assert status is not None, f"{argv} did not finish"
        return status, b"".join(out)
    return run
