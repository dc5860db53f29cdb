"""The machine's contract (machine/contract.py): the machine and the test doubles the trace and
fs tests use implement the same Protocols, member for member, with the same parameters."""

import inspect

import pytest

from fakes import FakeGuestTracing, FakeMachine, FakePidLists
from tracefs_sim.machine import Machine, MachineOptions, contract


def _members(protocol: type) -> dict[str, object]:
    """What a Protocol (and the Protocols it extends) declares: name -> its function or property."""
    members: dict[str, object] = {}
    for klass in reversed(protocol.__mro__):
        if klass is object or not getattr(klass, "_is_protocol", False):
            continue
        for name, value in vars(klass).items():
            if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property)):
                members[name] = value
    return members


def _parameters(fn) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def _check(obj: object, protocol: type) -> None:
    assert isinstance(obj, protocol)
    for name, declared in _members(protocol).items():
        assert hasattr(obj, name), f"{type(obj).__name__} has no {name}"
        if isinstance(declared, property):
            continue
        implemented = getattr(type(obj), name)
        wanted, given = _parameters(declared), _parameters(implemented)
        assert [p.name for p in given[:len(wanted)]] == [p.name for p in wanted], \
            f"{type(obj).__name__}.{name}{inspect.signature(implemented)} is not {name}{inspect.signature(declared)}"
        assert all(p.default is not inspect.Parameter.empty for p in given[len(wanted):]), \
            f"{type(obj).__name__}.{name} takes more than {protocol.__name__} gives it"


def test_the_machine_implements_every_role(vmlinux):
    machine = Machine(MachineOptions(cpus=1, kernel_image=vmlinux))   # (not started: nothing runs)
    for protocol in (contract.TracedMachine, contract.ServedMachine, contract.PatchableMachine):
        _check(machine, protocol)
    _check(machine.image, contract.KernelSymbols)
    _check(machine.tracing, contract.GuestTracingOps)
    _check(machine.tracing.pid_lists, contract.PidListOps)


@pytest.mark.parametrize("obj, protocol", [
    (FakeMachine(), contract.ServedMachine),
    (FakeMachine().image, contract.KernelSymbols),
    (FakeGuestTracing(), contract.GuestTracingOps),
    (FakePidLists(), contract.PidListOps),
])
def test_the_fakes_implement_the_contract(obj, protocol):
    _check(obj, protocol)


def test_a_missing_member_is_caught():
    class Partial(FakePidLists):
        set_function_fork = None   # type: ignore[assignment]

    with pytest.raises(AssertionError):
        _check(Partial(), contract.PidListOps)
