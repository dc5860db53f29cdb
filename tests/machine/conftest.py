"""Machine tests: programs run to completion (the image and make_machine: tests/conftest.py)."""
import sys

import pytest


@pytest.fixture(scope="module")
def machine(vmlinux):
    """A 2-cpu machine with no workload, one for a module's tests (a module's own `machine`
    fixture takes its place)."""
    from tracefs_sim.machine import Machine, MachineOptions
    m = Machine(MachineOptions(kernel_image=vmlinux, cpus=2, workload="none"))
    m.start()
    yield m
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


@pytest.fixture
def program_lines(run_program):
    """program_lines(machine, argv) -> the lines a guest program printed; it must exit 0."""
    def lines(machine, argv, timeout=120.0):
        status, out = run_program(machine, argv, timeout=timeout)
        assert status == 0, out
        return out.decode().splitlines()
    return lines


@pytest.fixture
def cpu_thread_calls():
    """cpu_thread_calls(machine) -> a one-item list counting the Python function calls made on
    the machine's CPU thread from now on (a profile hook set on that thread)."""
    def start(machine):
        calls = [0]

        def count(frame, event, arg):
            if event == "call":
                calls[0] += 1
        machine._runner.stop_machine(lambda: sys.setprofile(count))  # runs on the CPU thread
        return calls
    return start
