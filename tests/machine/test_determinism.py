"""Seeded runs: same seed, workload and commands => identical behaviour.

A seeded machine pauses after boot + a settle time and after the last spawned
program exits + the settle time; host operations act there (runloop.py)."""
import hashlib

from tracefs_sim.machine import Machine, MachineOptions


def seeded_run(vmlinux, seed, spawn=False):
    """Boot (optionally run getuid-loop 20); at the pause that follows return
    (RAM digest, virtual time, tasks, program output)."""
    m = Machine(MachineOptions(cpus=2, seed=seed, workload="default", kernel_image=vmlinux))
    out = []
    try:
        m.start()
        if spawn:
            assert m.spawn(["getuid-loop", "20"], out.append).wait(30) == 0
        assert m._runner.wait_paused()
        digest = m._runner.stop_machine(lambda: hashlib.sha256(m._mem.buf[:]).hexdigest())
        return digest, m.now_ns(), m.tasks(), b"".join(out)
    finally:
        m.stop()


def test_same_seed_same_machine_state(vmlinux):
    a = seeded_run(vmlinux, 7)
    b = seeded_run(vmlinux, 7)
    assert a == b
    assert {"sshd", "redis-server", "node"} <= {t.comm for t in a[2]}


def test_different_seed_differs(vmlinux):
    assert seeded_run(vmlinux, 7)[0] != seeded_run(vmlinux, 8)[0]


def test_same_commands_same_result(vmlinux):
    a = seeded_run(vmlinux, 3, spawn=True)
    b = seeded_run(vmlinux, 3, spawn=True)
    assert a[3] == b"0\n" * 20
    assert a == b


def test_paused_machine_does_not_advance(vmlinux):
    """Between commands a seeded machine holds: its clock stands still."""
    m = Machine(MachineOptions(cpus=1, seed=1, workload="default", kernel_image=vmlinux))
    try:
        m.start()
        assert m._runner.wait_paused()
        t = m.now_ns()
        m.tasks()
        assert m._runner.wait_paused(0.3) and m.now_ns() == t
    finally:
        m.stop()
