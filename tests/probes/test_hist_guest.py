"""Hist keys and values the emulated kernel computes at the event from expression steps
(kernel/tracing_map.c, HF_EXPR): expressions, constants, an operand's .log2, common_timestamp
and another trigger's $var, on the sys_enter / sys_exit of getuid() calls a program makes."""
import re

import pytest

GETUID = 102
N = 5


@pytest.fixture
def sim(traced):
    return traced(1, "none", 5)


def getuids(m, core, n: int = N) -> None:
    assert m.spawn(["getuid-loop", str(n)]).wait(30) == 0
    core.drain.drain_once()


def body(tree, event: str) -> list[str]:
    text = tree.walk(f"events/raw_syscalls/{event}/hist").read().decode()
    return [line for line in text.splitlines() if line.startswith("{")]


def test_expression_and_constant_keys_and_values(sim):
    m, core, tree = sim
    trigger = tree.walk("events/raw_syscalls/sys_enter/trigger")
    trigger.write(f"hist:keys=id*2,id-103,id.log2+1:vals=3,id+1:sort=id+1 if id == {GETUID}".encode())
    assert trigger.read().decode().startswith(
        f"hist:keys=id*2,id-103,id.log2+1:vals=hitcount,3,id+1:sort=id+1:size=2048 if id == {GETUID}")
    getuids(m, core)
    # the key of each is its value at the event; the constant's sum has no name; id+1 is not shown
    assert body(tree, "sys_enter") == [
        f"{{ id*2:        204, id-103: 18446744073709551615, id.log2+1:          8 }} hitcount:          {N}"
        f"  :         {3 * N}"]


def test_common_timestamp_values_are_the_events_time(sim):
    m, core, tree = sim
    tree.walk("events/raw_syscalls/sys_enter/trigger").write(
        f"hist:keys=id:vals=common_timestamp,common_timestamp.usecs if id == {GETUID}".encode())
    assert tree.walk("events/raw_syscalls/sys_enter/trigger").read().decode() == \
        f"hist:keys=id:vals=hitcount,common_timestamp,common_timestamp.usecs:sort=hitcount:size=2048:" \
        f"clock=global if id == {GETUID} [active]\n"
    tree.walk("events/raw_syscalls/sys_enter/filter").write(f"id == {GETUID}".encode())
    tree.walk("events/raw_syscalls/sys_enter/enable").write(b"1")
    getuids(m, core)
    stamps = [int(s.replace(".", "")) for s in
              re.findall(r" (\d+\.\d{6}): sys_enter: NR 102", tree.walk("trace").read().decode())]
    assert len(stamps) == N
    line, = body(tree, "sys_enter")
    found = re.fullmatch(r"\{ id: +102 \} hitcount: +5  common_timestamp: +(\d+)  common_timestamp: +(\d+)", line)
    assert found, line
    # one .usecs makes the trigger's every timestamp microseconds (attrs->ts_in_usecs), as 6.1
    assert found.group(1) == found.group(2)
    assert 0 <= int(found.group(1)) - sum(stamps) <= 20 * N


def test_a_value_reads_another_triggers_variable(sim):
    m, core, tree = sim
    tree.walk("events/raw_syscalls/sys_enter/trigger").write(
        f"hist:keys=common_pid:t=id*10 if id == {GETUID}".encode())
    exit_trigger = tree.walk("events/raw_syscalls/sys_exit/trigger")
    exit_trigger.write(f"hist:keys=common_pid:vals=$t,ret+$t:sort=ret+$t if id == {GETUID}".encode())
    assert exit_trigger.read().decode() == \
        f"hist:keys=common_pid:vals=hitcount,$t,ret+$t:sort=ret+$t:size=2048 if id == {GETUID} [active]\n"
    getuids(m, core)
    line, = body(tree, "sys_exit")
    assert re.fullmatch(rf"\{{ common_pid: +\d+ \}} hitcount: +{N}  t: +{1020 * N}", line), line
