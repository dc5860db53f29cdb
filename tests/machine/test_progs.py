"""Real programs in the emulated kernel: statically linked x86-64 ELF programs against glibc
(non-PIE and static PIE) and musl, loaded by binfmt_elf, running on demand-paged memory with
copy-on-write after fork (kernel_model/user/static/progtest.c; kernel/binfmt_elf.c,
mmap.c, memory.c, traps.c)."""
import os
import re
from pathlib import Path

import pytest
from guest_events import EventCapture

BUILD = Path(__file__).resolve().parents[2] / "kernel_model" / "build" / "user"
SIGSEGV_STATUS = 128 + 11  # the machine's status of a process killed by SIGSEGV (a shell's 139)
X86_PF_WRITE, X86_PF_USER, X86_PF_INSTR = 0x2, 0x4, 0x10

GLIBC = ["progtest", "progtest-pie"]
ALL = GLIBC + (["progtest-musl"] if (BUILD / "progtest-musl.img").exists() else [])


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2, workload="none")


@pytest.mark.parametrize("prog", ALL)
def test_a_static_program_gets_its_arguments_and_auxv(machine, run_program, prog):
    status, out = run_program(machine, [prog, "hello", "one", "two words"])
    assert status == 0, out
    lines = out.decode().splitlines()
    assert lines[0] == f"hello from {prog}, argc=4"
    assert lines[1:5] == [f"argv[0]={prog}", "argv[1]=hello", "argv[2]=one", "argv[3]=two words"]
    assert lines[5] == f"AT_PAGESZ=4096 AT_EXECFN={prog} AT_PLATFORM=x86_64 random=1"


@pytest.mark.parametrize("prog", ALL)
def test_malloc_of_small_and_large_blocks(machine, run_program, prog):
    status, out = run_program(machine, [prog, "malloc"])
    assert status == 0, out
    assert out.decode().splitlines() == ["brk grew: yes", "malloc ok"]


@pytest.mark.parametrize("prog", ALL)
def test_fork_gives_the_child_its_own_copy(machine, run_program, prog):
    status, out = run_program(machine, [prog, "fork"])
    assert status == 0, out
    assert out.decode().splitlines() == ["child sees 2", "parent sees 1, child exited 7",
                                      f"parent read {4 * 4096 + 100} bytes, all the child's"]


@pytest.mark.parametrize("prog", ALL)
def test_mmap_mprotect_munmap(machine, run_program, prog):
    status, out = run_program(machine, [prog, "mmap"])
    assert status == 0, out
    assert out.decode().splitlines() == ["fresh page reads 0", "after mprotect: written",
                                         "middle page kept: written", "mmap ok"]


def test_the_stack_grows_on_demand(machine, run_program):
    assert run_program(machine, ["progtest", "stack"]) == (0, b"deep stack ok\n")


@pytest.mark.parametrize("cmd, said", [("segv", b"about to fault\n"), ("wprotect", b"read-only page reads 0\n")])
def test_a_bad_access_dies_by_sigsegv(machine, run_program, cmd, said):
    status, out = run_program(machine, ["progtest", cmd])
    assert (status, out) == (SIGSEGV_STATUS, said)
    assert b"progtest[" in machine.console_output() and b"]: segfault at " in machine.console_output()
    assert run_program(machine, ["true"])[0] == 0  # the machine goes on


def test_page_faults_are_on_the_trace(machine, run_program, image):
    cap = EventCapture(machine)
    cap.enable("exceptions:page_fault_user", "exceptions:page_fault_kernel")
    assert run_program(machine, ["progtest", "segv"])[0] == SIGSEGV_STATUS
    recs = cap.records()
    user = [r.fields for r in recs if r.event == "exceptions:page_fault_user"]
    # the first touch of the text is an instruction fetch of a page not yet there
    assert any(f["error_code"] == X86_PF_USER | X86_PF_INSTR for f in user)
    # the bad write at address 16: user, write, not present
    assert any(f["address"] == 16 and f["error_code"] == X86_PF_USER | X86_PF_WRITE for f in user)
    # the kernel's own faults on user memory: zeroing the end of the data page (padzero)
    kernel = [r.fields for r in recs if r.event == "exceptions:page_fault_kernel"]
    assert kernel and all(f["address"] < 1 << 47 and not f["error_code"] & X86_PF_USER for f in kernel)
    assert all(image.kallsyms_lookup(f["ip"]) for f in kernel)  # faults in kernel text


def test_the_kernels_own_programs_are_elf_images_too(machine, run_program):
    assert run_program(machine, ["echo", "a", "b"]) == (0, b"a b\n")
    assert (BUILD / "echo.img").read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize("prog", ALL)
def test_pthreads_share_memory_and_join(machine, run_program, prog):
    """clone(CLONE_VM|CLONE_THREAD|CLONE_SETTLS|...) threads in one address space, a mutex
    (futex WAIT/WAKE) and pthread_join (CLONE_CHILD_CLEARTID's wake)."""
    status, out = run_program(machine, [prog, "threads"])
    assert status == 0, out
    assert out.decode().splitlines() == ["thread 0 returned 1", "thread 1 returned 2", "counter=20000"]


@pytest.mark.parametrize("prog", ALL)
def test_a_handler_runs_on_its_signal(machine, run_program, prog):
    cap = EventCapture(machine)
    cap.enable("signal:signal_generate", "signal:signal_deliver")
    assert run_program(machine, [prog, "signal"]) == (0, b"handler saw signal 10\n")
    recs = [r for r in cap.records() if r.fields.get("sig") == 10]
    generate = [r.fields for r in recs if r.event == "signal:signal_generate"]
    deliver = [r.fields for r in recs if r.event == "signal:signal_deliver"]
    assert len(generate) == 1 and generate[0]["comm"] == prog.encode()[:15]
    assert (generate[0]["code"], generate[0]["group"], generate[0]["result"]) == (0, 1, 0)  # SI_USER, kill()
    assert len(deliver) == 1 and deliver[0]["sa_handler"] != 0
    assert deliver[0]["sa_flags"] & 0x04000000  # SA_RESTORER: the libc's rt_sigreturn trampoline


@pytest.mark.parametrize("prog", ALL)
def test_a_fatal_signal_ends_every_thread(machine, run_program, prog):
    assert run_program(machine, [prog, "kill"]) == (128 + 15, b"killing myself\n")
    assert run_program(machine, ["true"])[0] == 0


def test_uname_and_limits(machine, run_program):
    assert run_program(machine, ["progtest", "uname"]) == (0, b"Linux 6.1.0-tracefs-sim x86_64 stack=8388608\n")


@pytest.mark.parametrize("prog", ALL)
def test_clocks(machine, run_program, prog):
    assert run_program(machine, [prog, "clock"]) == (
        0, b"slept at least 2ms: yes\neach read later than the last: yes\nrealtime after 2025: yes\ncpu time > 0: yes\n")


def test_a_thread_that_execs_takes_the_process_over(machine, run_program):
    """de_thread(): the other thread (waiting in pthread_join) is killed, the exec'd program runs
    with the process's pid; again and again (an exec from a thread once hung there)"""
    for _ in range(5):
        status, out = run_program(machine, ["progtest", "threadexec"])
        assert status == 0 and re.fullmatch(rb"exec'd from a thread, pid \d+\n", out), out


@pytest.mark.parametrize("prog", GLIBC)  # (musl's posix_spawn waits for its child on a pipe: pipe2)
def test_posix_spawn_vforks_and_execs_another_program(machine, run_program, prog):
    assert run_program(machine, [prog, "spawn"]) == (0, b"spawned echo\nchild exited 0\n")


BUSYBOX = "/bin/busybox"


def _static_busybox() -> bool:
    import os
    if not os.path.exists(BUSYBOX):
        return False
    with open(BUSYBOX, "rb") as f:
        return b"/ld-linux" not in f.read(4096)


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_a_host_program_runs_from_the_vfs(machine, run_program):
    """A path is exec'd through the VFS (the program's / is the host's, hostfs): its pages
    come in on fault through kernel_read; a shell, a pipe and an exec'd second program."""
    import os
    names = sorted(n for n in os.listdir("/") if not n.startswith("."))
    status, out = run_program(machine, [BUSYBOX, "ls", "-1", "/"])
    assert status == 0, out
    assert sorted(out.decode().split()) == names
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", "ls / | wc -l"])
    assert (status, out) == (0, f"{len(names)}\n".encode())


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_busybox_sh_runs_its_applets_through_proc_self_exe(machine, run_program):
    """busybox's shell runs an applet by exec'ing /proc/self/exe (the mm's exe_file, by its
    path): no search of PATH, where the host's dynamically linked wc would not run."""
    real = os.path.realpath(BUSYBOX)
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", "echo a | wc -c; readlink /proc/self/exe; "
                                        "readlink /proc/$$/exe; cat /proc/self/comm; "
                                        "cat /proc/2/comm; readlink /proc/2/exe || echo no exe"])
    # a kernel thread has no address space: no exe (ENOENT), as on Linux
    assert (status, out.decode().splitlines()) == (0, ["2", real, real, "cat", "kthreadd", "no exe"])


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_a_signal_ends_an_interruptible_sleep(machine, run_program):
    """A program asleep in accept() (a socket's wait: prepare_to_wait_event, TASK_INTERRUPTIBLE)
    or in a pipe's read dies of a SIGTERM another sends it, as on Linux; a SIGUSR1 ends a sleep."""
    status, out = run_program(machine, [BUSYBOX, "sh", "-c",
                                        "nc -l -p 5558 & n=$!; sleep 0.3; kill -TERM $n; wait $n; echo accept $?; "
                                        "mkfifo /tmp/f; (sleep 5 > /tmp/f) & cat /tmp/f & c=$!; sleep 0.3; "
                                        "kill -TERM $c; wait $c; echo read $?; "
                                        "sleep 5 & s=$!; sleep 0.3; kill -USR1 $s; wait $s; echo sleep $?"], timeout=60)
    said = [line for line in out.decode().splitlines() if line.split()[0] in ("accept", "read", "sleep")]
    assert (status, said) == (0, ["accept 143", "read 143", "sleep 138"]), out   # (the shell's own "Terminated" aside)


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_busybox_find_walks_the_hosts_etc(machine, run_program):
    expected = ["/etc"]
    for top, dirs, files in os.walk("/etc"):
        expected += [os.path.join(top, n) for n in dirs + files]
    status, out = run_program(machine, [BUSYBOX, "find", "/etc"], timeout=120)
    assert status == 0
    assert sorted(out.decode(errors="surrogateescape").splitlines()) == sorted(expected)


def test_a_dynamically_linked_program_cannot_run(machine, run_program):
    """Its interpreter is not loaded: 126, as a shell gives for a file it cannot execute, and
    the message says what it needs (kthreadd writes it with kernel_write: hostpipe's write_iter)."""
    dynamic = next((p for p in ("/bin/ls", "/usr/bin/env", "/bin/sh") if os.path.exists(p)), None)
    if dynamic is None:
        pytest.skip("no dynamically linked program on the host")
    status, out = run_program(machine, [dynamic])
    assert status == 126
    assert out.decode().startswith(f"{dynamic}: cannot execute: dynamically linked (needs the interpreter /")
    assert run_program(machine, ["/nonexistent/prog"]) == (127, b"/nonexistent/prog: No such file or directory\n")


def test_a_file_that_is_not_elf_cannot_run(machine, run_program):
    """ENOEXEC: 126 and the shell's words. (The program's /tmp is the kernel's own tmpfs, so the
    file is made in the host's /var/tmp.)"""
    import tempfile
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        path = os.path.join(d, "notelf")
        with open(path, "w") as f:
            f.write("just text\n")
        os.chmod(path, 0o755)
        assert run_program(machine, [path]) == (126, f"{path}: cannot execute: Exec format error\n".encode())


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_proc_pid_maps_and_cmdline(machine, run_program):
    """maps as 6.1's show_map_vma prints it (the program's file mappings with offset, device and
    inode, the brk's [heap], the [stack]; names from column 73), cmdline the argument strings."""
    real = os.path.realpath(BUSYBOX)
    ino = os.stat(real).st_ino
    script = "cat /proc/$$/cmdline; echo; cat /proc/self/maps"  # (the shell execs its last command)
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", script])
    assert status == 0, out
    cmdline, maps = out.split(b"\n", 1)
    lines = maps.decode().splitlines()
    files = [line for line in lines if line.endswith(real)]
    assert files and all(len(line) == 73 + len(real) for line in files)
    first = files[0].split()
    assert first[1:3] == ["r--p", "00000000"] and int(first[4]) == ino
    assert any(line.split()[1] == "r-xp" for line in files)  # the text
    assert sum(line.endswith("[heap]") for line in lines) >= 1
    assert lines[-1].endswith("[stack]") and lines[-1].split()[1] == "rw-p"
    assert cmdline == f"{BUSYBOX}\0sh\0-c\0{script}\0".encode()
    # a kernel thread's are empty
    assert run_program(machine, [BUSYBOX, "sh", "-c", "cat /proc/2/cmdline /proc/2/maps | wc -c"]) == (0, b"0\n")


DATA = Path(__file__).resolve().parents[1] / "data"
TOOLCHAINS = {"gcc": ["gcc", "-static", "-O1", "-pthread"], "musl": ["musl-gcc", "-static", "-O1"]}


@pytest.fixture(scope="module")
def build_static():
    """build_static(source, toolchain="gcc") -> the path of tests/data/SOURCE built static in
    the host's /var/tmp (a program's /tmp is the kernel's own tmpfs); skips without the
    toolchain."""
    import shutil
    import subprocess
    import tempfile
    d = tempfile.mkdtemp(dir="/var/tmp", prefix="tracefs-sim-progs-")

    def build(source: str, toolchain: str = "gcc") -> str:
        cc = TOOLCHAINS[toolchain]
        if not shutil.which(cc[0]):
            pytest.skip(f"no {toolchain} static toolchain")
        out = os.path.join(d, f"{Path(source).stem}-{toolchain}")
        if not os.path.exists(out):
            subprocess.run([*cc, "-o", out, str(DATA / source)], check=True, timeout=120)
        return out
    yield build
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("toolchain", ["gcc", "musl"])
def test_a_users_static_program_runs_as_on_the_host(machine, run_program, build_static, toolchain):
    """The same binary on the host and in the emulated kernel: the same output and exit status
    (file mmap private and shared read-only, threads, signals, fork + execve, exit 5)."""
    import subprocess
    path = build_static("userprog.c", toolchain)
    host = subprocess.run([path, "5"], capture_output=True, timeout=60)
    assert host.returncode == 5 and b"child exited 42" in host.stdout
    assert run_program(machine, [path, "5"], timeout=120) == (5, host.stdout)


def _seeded_trace(vmlinux, seed, argv):
    from tracefs_sim.machine import Machine, MachineOptions
    m = Machine(MachineOptions(cpus=2, seed=seed, workload="default", kernel_image=vmlinux))
    out = []
    try:
        m.start()
        cap = EventCapture(m)
        cap.enable("raw_syscalls:sys_enter", "raw_syscalls:sys_exit", "sched:sched_switch",
                   "exceptions:page_fault_user", "sched:sched_process_exec")
        status = m.spawn(argv, out.append).wait(120)
        assert m._runner.wait_paused()
        return status, b"".join(out), cap.records()
    finally:
        m.stop()


def test_a_users_program_under_a_seed_gives_the_same_trace(vmlinux, build_static):
    """--seed N: the same program and input give the same trace, timestamps included (the
    program's syscalls, faults and switches, with the default workload running beside it)."""
    argv = [build_static("userprog.c"), "3"]
    a = _seeded_trace(vmlinux, 11, argv)
    b = _seeded_trace(vmlinux, 11, argv)
    assert a[0] == 3 and b"child exited 42" in a[1]
    assert any(r.event == "sched:sched_process_exec" for r in a[2])
    assert a == b


@pytest.mark.parametrize("execer", ["leader", "thread"])
def test_execve_from_a_multithreaded_program(machine, run_program, build_static, execer):
    """de_thread(): the other threads go; the new program is the process's only thread (its
    exit status the caller's), whether the leader or another thread execs (which takes the
    leader's pid; its parent does not reap the zombie leader meanwhile)."""
    status, out = run_program(machine, [build_static("dethread.c"), execer], timeout=60)
    assert (status, out) == (7, b"pid kept 1, tid is the pid 1, threads:\t1\n")


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_proc_pid_stat_as_6_1_prints_it(machine, run_program):
    """do_task_stat's 52 fields: the cat reading its own, the shell's (sleeping, its parent
    kthreadd, its handlers), a kernel thread's; busybox ps reads them."""
    status, out = run_program(machine, [BUSYBOX, "sh", "-c", "echo $$; cat /proc/self/stat /proc/$$/stat /proc/2/stat; ps"])
    assert status == 0, out
    lines = out.decode().splitlines()
    shell = int(lines[0])
    mine, sh, kthread = (line.split() for line in lines[1:4])
    assert all(len(f) == 52 for f in (mine, sh, kthread))
    assert mine[1:4] == ["(cat)", "R", str(shell)] and sh[0] == str(shell) and sh[1:4] == ["(busybox)", "S", "2"]
    assert int(mine[9]) > 0 and int(mine[22]) > 0 and int(mine[23]) > 0  # minflt, vsize, rss
    assert mine[19] == "1" and mine[17:19] == ["20", "0"]  # threads; priority, nice
    assert int(mine[25]) < int(mine[26]) and int(mine[27]) > 1 << 46  # start/end code, start stack
    assert int(sh[33]) & (1 << 16)  # the shell catches SIGCHLD (sigcatch)
    assert kthread[1:3] == ["(kthreadd)", "S"] and int(kthread[8]) & 0x00200000  # PF_KTHREAD
    assert kthread[22:24] == ["0", "0"] and kthread[44:51] == ["0"] * 7  # no mm: start_data..env_end
    assert any(line.split()[-1] == "[kthreadd]" for line in lines[4:])  # ps


def test_clone_files_and_fs_share_the_fd_table_and_the_cwd(machine, run_program, build_static):
    assert run_program(machine, [build_static("clonefs.c")]) == (
        0, b"shared: child's fd open here, cwd /etc\ncopied: child's fd closed here, cwd /\n")


@pytest.mark.skipif(not _static_busybox(), reason="needs Debian's busybox-static at /bin/busybox")
def test_a_thousand_forks_and_a_spinning_program_leave_the_kernel_up(machine, run_program):
    """A program that forks a thousand children and one that spins: each dies or ends as on
    Linux (the spinner by SIGKILL: 137), and the kernel goes on running programs."""
    script = ("i=0; while [ $i -lt 1000 ]; do (exit 3) & i=$((i+1)); done; wait; echo forked $i; "
              "(while :; do :; done) & p=$!; sleep 0.3; kill -9 $p; wait $p; echo spinner $?")
    # (busybox sh reports the job the signal ended: "Killed")
    assert run_program(machine, [BUSYBOX, "sh", "-c", script], timeout=300) == (0, b"forked 1000\nKilled\nspinner 137\n")
    assert run_program(machine, [BUSYBOX, "echo", "still up"]) == (0, b"still up\n")
