"""/dev/kmsg in a session is the emulated kernel's (kernel/printk.c's devkmsg, 6.1's): its open is
served by the kernel (the process gets a placeholder fd, as for perf_event_open), and reads,
writes, lseek, fstat and poll on it are the kernel's; a read that would wait is held by the
supervisor until the log has a record for it. The host's /dev/kmsg is never opened: nothing a
session writes reaches the host's log."""

import os
import re
import subprocess
import textwrap
import uuid

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and namespaces")

EINVAL, ESPIPE, EAGAIN, EACCES = 22, 29, 11, 13


def run(script: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The script in a session whose kernel runs no workload: no cron writes to the log meanwhile."""
    return tracefs_sim("run", "--workload", "none", "-c", script, timeout=timeout)


def host_log() -> str:
    """The host's log as its dmesg reads it (its syslog(2); empty where the host denies it)."""
    return subprocess.run(["dmesg"], capture_output=True, text=True, timeout=30).stdout


def test_dmesg_reads_the_emulated_kernels_dev_kmsg():
    """util-linux dmesg opens /dev/kmsg (no fallback to syslog(2)) and prints the emulated
    kernel's log; a line written to /dev/kmsg is a record of it, with the writer's level."""
    marker = f"kmsg-test-{uuid.uuid4().hex[:8]}"
    result = run(textwrap.dedent(f"""
        ls -l /dev/kmsg | cut -c1-10
        strace -e trace=openat,syslog -o /tmp/dmesg.$$ dmesg | head -1
        grep -c 'openat(AT_FDCWD, "/dev/kmsg", O_RDONLY|O_NONBLOCK) = 3' /tmp/dmesg.$$
        grep -c syslog /tmp/dmesg.$$; rm /tmp/dmesg.$$
        echo "<4>{marker} warned" > /dev/kmsg; echo "<14>{marker} informed" > /dev/kmsg
        echo "{marker} plain" > /dev/kmsg
        dmesg -x | grep {marker}
        """))
    assert result.returncode == 0, result.stderr
    mode, banner, opened, syslogs, *logged = result.stdout.splitlines()
    assert mode == "crw-r--r--"
    assert re.fullmatch(r"\[ +\d+\.\d{6}\] Linux version 6\.1\.0-tracefs-sim .*", banner), banner
    assert opened == "1" and syslogs == "0"
    # "<4>": facility 0, which a write does not take: LOG_USER, level 4; "<14>": 1 * 8 + 6;
    # none: the default level (4) and LOG_USER
    assert [re.sub(r"\[ *[\d.]+\]", "[T]", line) for line in logged] == [
        f"user  :warn  : [T] {marker} warned", f"user  :info  : [T] {marker} informed",
        f"user  :warn  : [T] {marker} plain"], logged
    assert marker not in host_log()


def test_dev_kmsg_reads_and_seeks_as_6_1():
    """One record a read ("prio,seq,usec,-;text"); a buffer too small: EINVAL; at the end a
    non-blocking read: EAGAIN; lseek only to 0 with SEEK_SET, SEEK_DATA, SEEK_END (SEEK_CUR:
    EINVAL, another offset: ESPIPE); a write longer than LOG_LINE_MAX (992): EINVAL; fstat: the
    device."""
    result = run(textwrap.dedent("""
        dd if=/dev/kmsg iflag=nonblock bs=8k count=100000 of=/dev/null 2>&1 | grep error
        dd if=/dev/kmsg bs=8 count=1 of=/dev/null 2>&1 | grep error
        python3 - <<'EOF'
        import os
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        print(os.read(fd, 8192).decode().rstrip())
        def seek(offset, whence):
            try:
                return os.lseek(fd, offset, whence)
            except OSError as e:
                return f"errno {e.errno}"
        print(seek(0, os.SEEK_END), seek(0, os.SEEK_DATA), seek(0, os.SEEK_SET), seek(0, os.SEEK_CUR),
              seek(1, os.SEEK_SET), seek(-1, os.SEEK_END))
        os.lseek(fd, 0, os.SEEK_END)
        try:
            os.read(fd, 8192)
        except OSError as e:
            print("at the end: errno", e.errno)
        st = os.fstat(fd)
        print(oct(st.st_mode), os.major(st.st_rdev), os.minor(st.st_rdev))
        w = os.open("/dev/kmsg", os.O_WRONLY)
        print(os.write(w, b"y" * 992))
        try:
            os.write(w, b"x" * 993)
        except OSError as e:
            print("too long: errno", e.errno)
        EOF
        """))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "dd: error reading '/dev/kmsg': Resource temporarily unavailable"
    assert lines[1] == "dd: error reading '/dev/kmsg': Invalid argument"
    assert re.fullmatch(r"5,0,\d+,-;Linux version 6\.1\.0-tracefs-sim .*", lines[2]), lines[2]
    assert lines[3:] == [f"0 0 0 errno {EINVAL} errno {ESPIPE} errno {ESPIPE}", f"at the end: errno {EAGAIN}",
                         "0o20644 1 11", "992", f"too long: errno {EINVAL}"]


def test_a_blocking_reader_waits_for_the_next_record():
    """`cat /dev/kmsg` reads the log, then waits at its end (timeout ends it); `dmesg -w` shows
    a line another process of the session writes later; a poll of /dev/kmsg is ready when a
    record comes."""
    result = run(textwrap.dedent("""
        timeout 2 cat /dev/kmsg > /tmp/cat.$$; echo cat $?; head -1 /tmp/cat.$$ | cut -d';' -f2 | cut -c1-13
        rm /tmp/cat.$$
        timeout 5 dmesg -w > /tmp/follow.$$ & sleep 1.5; echo "<4>written later" > /dev/kmsg; wait
        grep -c 'written later' /tmp/follow.$$; rm /tmp/follow.$$
        python3 - <<'EOF'
        import os, select
        fd = os.open("/dev/kmsg", os.O_RDONLY)
        os.lseek(fd, 0, os.SEEK_END)
        p = select.poll()
        p.register(fd, select.POLLIN)
        print("idle", p.poll(300))
        if os.fork() == 0:
            os.write(os.open("/dev/kmsg", os.O_WRONLY), b"<6>for the poller")
            os._exit(0)
        os.wait()
        print("written", p.poll(5000))
        print(os.read(fd, 8192).decode().split(";")[1].strip())
        EOF
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["cat 124", "Linux version", "1", "idle []", "written [(3, 1)]",
                                          "for the poller"]


def test_a_signal_interrupts_a_waiting_read():
    """A read waiting for a record ends with a signal, as devkmsg_read's wait does: EINTR after
    a handler without SA_RESTART (Python raises the handler's exception), restarted with it."""
    result = run(textwrap.dedent("""
        python3 - <<'EOF'
        import os, signal, time
        class Alarm(Exception):
            pass
        def raise_alarm(*_):
            raise Alarm()
        signal.signal(signal.SIGALRM, raise_alarm)
        fd = os.open("/dev/kmsg", os.O_RDONLY)
        os.lseek(fd, 0, os.SEEK_END)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        start = time.monotonic()
        try:
            os.read(fd, 8192)
            print("read")
        except Alarm:
            print("interrupted", 0.4 < time.monotonic() - start < 3)
        signal.signal(signal.SIGALRM, lambda *_: None)
        signal.siginterrupt(signal.SIGALRM, False)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        if os.fork() == 0:
            time.sleep(1)
            os.write(os.open("/dev/kmsg", os.O_WRONLY), b"<6>after the signal")
            os._exit(0)
        while "after the signal" not in os.read(fd, 8192).decode():
            pass
        print(True)
        EOF
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["interrupted True", "True"]


def test_a_write_fires_printk_console_and_never_reaches_the_host():
    """printk:console records a /dev/kmsg write in the emulated kernel's trace, from the
    writer's context; the host's log never sees it."""
    marker = f"console-{uuid.uuid4().hex[:8]}"
    result = run(textwrap.dedent(f"""
        cd /sys/kernel/tracing
        echo 1 > events/printk/console/enable
        echo "<5>{marker}" > /dev/kmsg
        echo 0 > events/printk/console/enable
        grep {marker} trace
        """))
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(rf" +bash-\d+ +\[\d+\] \S+ +[\d.]+: console: {marker}\n", result.stdout), result.stdout
    assert marker not in host_log()


def test_dev_kmsg_by_other_names():
    """A link named kmsg and openat(fd of /dev, "kmsg") open the emulated kernel's /dev/kmsg too;
    the device by another name is refused (EACCES: the session's /dev/kmsg is on a nodev mount),
    never the host's; dup, dup2 and F_DUPFD of the fd are the kernel's file; openat2(2) opens it
    with the flags of its struct open_how."""
    result = run(textwrap.dedent("""
        d=$(mktemp -d); ln -s /dev/kmsg $d/kmsg; ln -s /dev/kmsg $d/log
        head -n1 $d/kmsg | cut -d';' -f2 | cut -c1-13
        head -n1 $d/log 2>&1 | sed 's/.*: //'
        rm -r $d
        python3 - <<'EOF'
        import fcntl, os
        dev = os.open("/dev", os.O_RDONLY | os.O_DIRECTORY)
        fd = os.open("kmsg", os.O_RDONLY | os.O_NONBLOCK, dir_fd=dev)
        print(os.read(fd, 8192).decode().split(";")[1][:13])
        w = os.open("/dev/kmsg", os.O_WRONLY)
        for n in range(4):
            os.write(w, b"<6>line %d" % n)
        copies = [os.dup(fd), os.dup2(fd, 40), fcntl.fcntl(fd, fcntl.F_DUPFD, 50)]
        # the same file: each read takes the next record
        print(copies[1:], all(b";" in os.read(c, 8192) for c in copies))
        os.lseek(copies[0], 0, os.SEEK_END)
        try:
            os.read(fd, 8192)
        except BlockingIOError:
            print("True")
        # openat2(2), its flags in a struct open_how
        import ctypes, struct
        how = struct.pack("QQQ", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC, 0, 0)
        fd2 = ctypes.CDLL(None, use_errno=True).syscall(437, -100, b"/dev/kmsg", how, len(how))
        print(os.read(fd2, 8192).decode().split(";")[1][:13], fcntl.fcntl(fd2, fcntl.F_GETFD),
              bool(fcntl.fcntl(fd2, fcntl.F_GETFL) & os.O_NONBLOCK))
        EOF
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["Linux version", "Permission denied", "Linux version", "[40, 50] True",
                                          "True", "Linux version 1 True"]


def test_epoll_of_dev_kmsg():
    """epoll (journald's way): the fd is ready, edge-triggered, when the log has a record its
    reader has not read; F_GETFL shows the open's O_NONBLOCK."""
    result = run(textwrap.dedent("""
        python3 - <<'EOF'
        import fcntl, os, select
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        print(bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK))
        ep = select.epoll()
        ep.register(fd, select.EPOLLIN | select.EPOLLET)
        print("unread", ep.poll(5))
        while True:
            try:
                os.read(fd, 8192)
            except BlockingIOError:
                break
        print("drained", ep.poll(0.3))
        os.write(os.open("/dev/kmsg", os.O_WRONLY), b"<6>for epoll")
        print("written", ep.poll(5))
        print(os.read(fd, 8192).decode().split(";")[1].strip())
        print("read", ep.poll(0.3))
        EOF
        """))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["True", "unread [(3, 1)]", "drained []", "written [(3, 1)]", "for epoll",
                                          "read []"]


def test_writes_are_rate_limited_per_open_file():
    """printk.devkmsg=ratelimit, 6.1's default: an open file of /dev/kmsg writes ten records in
    five seconds, the rest are dropped (the write still succeeds) and counted, and its release
    says how many in the kernel's own words; each open has its own limit."""
    marker = f"rl-{uuid.uuid4().hex[:8]}"
    result = run(f"for i in $(seq 1 14); do echo {marker} $i || echo failed; done > /dev/kmsg; "
                 f"for i in 1 2; do echo {marker} solo$i > /dev/kmsg; done; dmesg")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "failed" not in result.stdout
    lines = [re.sub(r"^\[ *\d+\.\d+\] ", "", line) for line in result.stdout.splitlines()]
    ours = [line for line in lines if marker in line or "suppressed" in line]
    assert ours == [f"{marker} {i}" for i in range(1, 11)] + [
        "printk: bash: 4 output lines suppressed due to ratelimiting", f"{marker} solo1", f"{marker} solo2"], ours


def test_proc_kmsg_is_the_emulated_kernels():
    """/proc/kmsg in a session is the emulated kernel's (fs/proc/kmsg.c, 6.1's): a reader takes
    the records no such read took yet (the kernel's boot log first), waits for the next one
    (held, as a /dev/kmsg read is), and a non-blocking read with nothing left is EAGAIN. The
    host's /proc/kmsg, whose reads would take the host's records for good, is never read: its
    cover (mode 0400, as 6.1's) refuses an open the kernel does not serve."""
    marker = f"pk-{uuid.uuid4().hex[:8]}"
    result = run(textwrap.dedent(f"""
        ls -l /proc/kmsg | cut -c1-10
        out=$(mktemp)
        cat /proc/kmsg > $out & c=$!
        sleep 1; echo {marker} > /dev/kmsg; sleep 1
        kill $c; wait $c
        grep -c 'Linux version 6.1.0-tracefs-sim' $out
        grep -c 'Linux version' $out
        grep -c '^<12>\\[ *[0-9.]*\\] {marker}$' $out
        dd if=/proc/kmsg of=/dev/null iflag=nonblock 2>&1 | head -1
        rm $out
    """), timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "-r--------", "1", "1", "1", "dd: error reading '/proc/kmsg': Resource temporarily unavailable"], result.stdout
