"""User programs entering the kernel with `syscall`: output, exit status."""
from pathlib import Path

import pytest


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def test_cat_passwd(machine, run_program):
    """A spawned program's "/" is the host's (hostfs)."""
    assert run_program(machine, ["cat", "/etc/passwd"]) == (0, Path("/etc/passwd").read_bytes())


def test_cat_several_files_and_proc(machine, run_program):
    status, out = run_program(machine, ["cat", "/etc/hostname", "/proc/version"])
    assert status == 0
    assert out.startswith(Path("/etc/hostname").read_bytes() + b"Linux version 6.1.0")


def test_cat_missing_file(machine, run_program):
    status, out = run_program(machine, ["cat", "/etc/nope"])
    assert status == 1
    assert out == b"cat: /etc/nope: No such file or directory\n"


def test_getuid_loop(machine, run_program):
    status, out = run_program(machine, ["getuid-loop", "5"])
    assert status == 0
    assert out == b"0\n" * 5


def test_echo_and_true(machine, run_program):
    assert run_program(machine, ["echo", "hello", "world"]) == (0, b"hello world\n")
    assert run_program(machine, ["/bin/true"]) == (0, b"")


def test_argv_of_every_length_survives_exec(machine, run_program):
    # argv is packed with memcpy at every offset and length mod 8: catches a
    # wrong quadword bulk or byte tail in the kernel's memcpy
    args = [bytes(range(65 + n % 26, 65 + n % 26 + n)).decode() for n in range(1, 20)]
    assert run_program(machine, ["echo", *args]) == (0, " ".join(args).encode() + b"\n")


def test_dd_read_write_loop(machine, run_program):
    status, out = run_program(machine, ["dd", "if=/dev/zero", "of=/dev/null", "bs=4096", "count=8"])
    assert status == 0
    assert out == b"8+0 records in\n8+0 records out\n32768 bytes copied\n"


def test_dd_unwritable_target(machine, run_program):
    status, out = run_program(machine, ["dd", "if=/dev/zero", "of=/etc/passwd", "count=1"])
    assert status == 1
    assert b"Read-only file system" in out


def test_sleep_takes_virtual_time(machine, run_program):
    v0 = machine.now_ns()
    status, _ = run_program(machine, ["sleep", "0.3"])
    assert status == 0
    assert machine.now_ns() - v0 >= 300_000_000


def test_unknown_program(machine, run_program):
    with pytest.raises(FileNotFoundError):
        machine.spawn(["no-such-program"])
    with pytest.raises(FileNotFoundError):
        machine.spawn(["init"])  # started by the kernel, not on demand


def test_pid_and_wait_timeout(machine, run_program):
    proc = machine.spawn(["sleep", "1"])
    assert proc.pid > 2
    assert proc.wait(0.05) is None
    assert proc.wait(10) == 0
    assert proc.pid not in {t.pid for t in machine.tasks()}


def test_parallel_programs_on_two_cpus(machine, run_program):
    outs = {i: [] for i in range(4)}
    procs = [machine.spawn(["getuid-loop", "200"], outs[i].append) for i in range(4)]
    assert [p.wait(30) for p in procs] == [0] * 4
    assert all(b"".join(o) == b"0\n" * 200 for o in outs.values())


def test_preemption_of_busy_user_code(make_machine):
    """Two CPU-bound programs on one cpu both progress: the timer preempts."""
    m = make_machine(cpus=1)
    a, b = [], []
    pa = m.spawn(["getuid-loop", "3000"], a.append)
    pb = m.spawn(["getuid-loop", "3000"], b.append)
    assert pa.wait(60) == 0 and pb.wait(60) == 0
    assert b"".join(a).count(b"\n") == 3000 and b"".join(b).count(b"\n") == 3000


def test_argv_too_long(machine):
    with pytest.raises(OSError) as exc:
        machine.spawn(["echo", "x" * 1100])
    assert exc.value.errno == 7  # E2BIG
    assert machine.spawn(["true"]).wait(10) == 0  # nothing left behind


def test_failing_output_callback_does_not_kill_the_machine(machine, run_program):
    def broken(data):
        raise RuntimeError("consumer bug")
    assert machine.spawn(["echo", "hi"], broken).wait(10) == 0
    assert run_program(machine, ["echo", "still", "alive"]) == (0, b"still alive\n")


def test_programs_reusing_each_others_code_pages(machine, run_program):
    """exec and fork fill freed pages with new code through the no-execute direct map; a CPU
    that ran the old code there must not run its translation of it (PORT_CODE drops them)."""
    programs = ((["echo", "x"], b"x\n"), (["/bin/true"], b""), (["getuid-loop", "2"], b"0\n0\n"))
    for _ in range(4):
        for argv, output in programs:
            assert run_program(machine, argv) == (0, output)


@pytest.mark.parametrize("argv, output", [
    # rseq is a session task's registration only: the kernel's own programs would need their
    # cpu_id fields kept on each return to user mode (rseq_handle_notify_resume), so ENOSYS
    (["syscall", "334", "0", "32", "0", "0"], b"-38 (Function not implemented)\n"),
    # clone3 is a session task's (its host process made the child): here copy_process has no
    # clone3 stack, so ENOSYS, as before
    (["syscall", "435", "0", "88"], b"-38 (Function not implemented)\n"),
    # ARCH_SET_GS/GET_GS: the kernel's %gs is the per-cpu base: no user GS base for its programs
    (["syscall", "158", "4097", "0"], b"-22 (Invalid argument)\n"),
    (["syscall", "158", "4100", "0"], b"-22 (Invalid argument)\n"),
])
def test_session_only_calls_of_the_kernels_own_programs(machine, run_program, argv, output):
    assert run_program(machine, argv) == (1, output)
