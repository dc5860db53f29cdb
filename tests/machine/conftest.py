"""Machine tests: programs run to completion (the image and make_machine: tests/conftest.py)."""
import pytest


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
