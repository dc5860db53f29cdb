"""Seeded runs: same seed, workload and commands => identical behaviour."""
import hashlib
import struct
import threading

from tracefs_sim.machine import Machine, MachineOptions


def seeded_run(vmlinux, seed, spawn_at=None, stop_at=600_000_000):
    """Run to stop_at virtual ns (optionally spawning getuid-loop at spawn_at);
    returns (RAM digest, virtual time, tasks, program output)."""
    m = Machine(MachineOptions(cpus=2, seed=seed, workload="default", kernel_image=vmlinux))
    out = []
    try:
        m.start()
        runner = m._runner
        if spawn_at is not None:
            runner.set_pause_at(spawn_at)
            assert runner.wait_paused()
            # the request is posted while the guest is held at spawn_at
            t = threading.Thread(target=lambda: out.append(m.spawn(["getuid-loop", "20"], out.append)))
            t.start()
            head = m._hostif.requests  # u32 written by the host when a request is posted
            while not struct.unpack_from("<I", m._mem.buf, head)[0] and t.is_alive():
                t.join(0.01)
            runner.resume()
            t.join(30)
        runner.set_pause_at(stop_at)
        assert runner.wait_paused()
        digest = m._runner.stop_machine(lambda: hashlib.sha256(m._mem.buf[:]).hexdigest())
        return digest, m.now_ns(), m.tasks(), b"".join(x for x in out if isinstance(x, bytes))
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
    a = seeded_run(vmlinux, 3, spawn_at=300_000_000)
    b = seeded_run(vmlinux, 3, spawn_at=300_000_000)
    assert a[3] == b"0\n" * 20
    assert a == b
