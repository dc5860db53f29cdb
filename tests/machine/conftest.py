"""Machine tests: started machines, stopped at teardown (the image: tests/conftest.py)."""
import pytest


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
