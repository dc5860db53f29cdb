"""The network (kernel_model/net/): sockets over the loopback, driven by the guest program
`nettest` (kernel_model/user/nettest.c), give in the emulated kernel what they give on this
Linux host: the same static binary runs on both and prints every call's result.  Then the
events the traffic produces (sock, tcp, net, napi, skb), recorded in the guest."""
import subprocess
from pathlib import Path

import pytest

from guest_events import EventCapture

NETTEST = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user" / "nettest.elf"


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def on_host(family: str) -> str:
    out = subprocess.run([str(NETTEST), family], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, timeout=120, check=True).stdout.decode()
    assert out.count("\n") > 10
    return out


@pytest.mark.parametrize("family", ["tcp"])
def test_a_family_gives_what_linux_gives(machine, run_program, family):
    expected = on_host(family)
    status, out = run_program(machine, ["nettest", family], timeout=120)
    assert status == 0
    assert out.decode().splitlines() == expected.splitlines()
