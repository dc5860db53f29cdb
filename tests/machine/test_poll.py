"""poll, ppoll, select, pselect6 and eventfd in the emulated kernel (fs/select.c, fs/eventfd.c,
the ->poll of pipes, sockets and the host's stdin pipe): a static glibc program
(kernel_model/user/static/polltest.c) runs each case and prints what it saw; the expected lines
are what the same binary printed on the reference Linux 6.1 (real-tracefs)."""
import pytest


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2, workload="none")


def test_poll_on_a_pipe_times_out_then_is_readable_then_hung_up(machine, program_lines):
    assert program_lines(machine, ["polltest", "pipe"]) == [
        "empty: ret=0 revents=0 waited>=100ms=1",
        "written: ret=1 revents=IN waited<5s=1",
        "read 2",
        "writer gone: ret=1 revents=HUP",
        "POLLOUT on a read end: ret=1 revents=HUP",
    ]


def test_select_and_pselect6_on_a_pipe(machine, program_lines):
    assert program_lines(machine, ["polltest", "select"]) == [
        "timeout: ret=0 isset=0 left=0.000000",
        "ready: ret=2 read=1 write=1 left>4s=1",
        "no timeout: ret=1 read=1",
        "closed fd: ret=-1 errno=Bad file descriptor",
        "n=-1: ret=-1 errno=Invalid argument",
        "negative timeout: ret=-1 errno=Invalid argument",
        "pselect: ret=1 read=1",
    ]


def test_ppoll_and_pselect6_wait_with_the_callers_signal_mask(machine, program_lines):
    assert program_lines(machine, ["polltest", "ppoll"]) == [
        "blocked: ret=0 handler=0",
        "unblocked: ret=-1 errno=Interrupted system call handler=1",
        "mask after: SIGUSR1 blocked=1",
        "pselect unblocked: ret=-1 errno=Interrupted system call handler=2",
    ]


def test_eventfd_counts_and_polls(machine, program_lines):
    assert program_lines(machine, ["polltest", "eventfd"]) == [
        "empty read: ret=-1 errno=Resource temporarily unavailable",
        "empty poll: ret=1 revents=OUT",
        "after write: ret=1 revents=IN|OUT",
        "read: ret=8 value=3",
        "short read: ret=-1 errno=Invalid argument",
        "write ULLONG_MAX: ret=-1 errno=Invalid argument",
        "semaphore read: ret=8 value=1 errno=Success",
        "semaphore read: ret=8 value=1 errno=Success",
        "semaphore read: ret=-1 value=0 errno=Resource temporarily unavailable",
        "bad flags: ret=-1 errno=Invalid argument",
        "woken: ret=1 revents=IN value=7",
    ]


def test_poll_errors(machine, program_lines):
    assert program_lines(machine, ["polltest", "errors"]) == [
        "nfds>RLIMIT_NOFILE: ret=-1 errno=Invalid argument",
        "bad pointer: ret=-1 errno=Bad address",
        "closed and negative fds: ret=1 revents=NVAL,0",
        "no fds: ret=0",
        "/dev/null: ret=1 revents=IN|OUT",
    ]


def test_poll_on_sockets(machine, program_lines):
    # the unix lines are the reference 6.1's; its VM has no loopback up for the TCP half
    assert program_lines(machine, ["polltest", "socket"]) == [
        "unix idle: ret=1 revents=OUT",
        "unix data: ret=1 revents=IN|OUT",
        "unix peer closed: ret=1 revents=IN|HUP",
        "listener idle: ret=0 revents=0",
        "listener with a connection: ret=1 revents=IN",
        "tcp idle: ret=1 revents=OUT",
        "tcp data: ret=1 revents=IN",
        "tcp peer shut: ret=1 revents=IN",
        "udp idle: ret=1 revents=OUT",
    ]


def test_getrusage(machine, program_lines):
    assert program_lines(machine, ["polltest", "getrusage"]) == [
        "self: ret=0 minflt>0=1 nvcsw>0=1",
        "children: ret=0 minflt>0=1 nvcsw>0=1",
        "thread: ret=0 nvcsw>0=1",
        "bad who: ret=-1 errno=Invalid argument",
    ]


def test_epoll_on_pipes_an_eventfd_and_another_epoll(machine, program_lines):
    assert program_lines(machine, ["polltest", "epoll"]) == [
        "add: ret=0",
        "empty, 50ms: ret=0",
        "written: ret=1 events=IN data=42",
        "level-triggered, again: ret=1 events=IN data=42",
        "mod to EPOLLET: ret=0",
        "edge, first: ret=1 events=IN data=43",
        "edge, second: ret=0",
        "edge, after a write: ret=1 events=IN data=43",
        "oneshot, first: ret=1 events=IN data=44",
        "oneshot, disabled: ret=0",
        "add again: ret=-1 errno=File exists",
        "del: ret=0",
        "del again: ret=-1 errno=No such file or directory",
        "add itself: ret=-1 errno=Invalid argument",
        "add a regular file: ret=-1 errno=Operation not permitted",
        "bad maxevents: ret=-1 errno=Invalid argument",
        "not an epoll fd: ret=-1 errno=Invalid argument",
        "writer closed: ret=1 events=HUP data=45",
        "watched fd closed: ret=0",
        "add a set to a set: ret=0",
        "loop: ret=-1 errno=Too many levels of symbolic links",
        "outer, idle: ret=0",
        "outer, eventfd signalled: ret=1 events=IN data=47",
        "poll of the set: ret=1 revents=IN",
        "inner: ret=1 events=IN data=46",
    ]


def test_utimensat_futimens_utimes_futimesat_utime_on_tmpfs(machine, program_lines):
    assert program_lines(machine, ["polltest", "utimes"]) == [
        "utimensat: ret=0 atime=1000.000000500 mtime=2000.000000600",
        "atime omitted: ret=0 atime=1000.000000500 mtime=2500.000000600",
        "both omitted, no such path: ret=0 atime=1000.000000500 mtime=2500.000000600",
        "futimens: ret=0 atime=1100.000000000 mtime=2100.000000000",
        "utimes: ret=0 atime=3000.000007000 mtime=4000.000008000",
        "futimesat: ret=0 atime=3000.000007000 mtime=4000.000008000",
        "utime: ret=0 atime=5000.000000000 mtime=6000.000000000",
        "bad nsec: ret=-1 errno=Invalid argument",
        "bad usec: ret=-1 errno=Invalid argument",
        "bad flags: ret=-1 errno=Invalid argument",
        "no such file: ret=-1 errno=No such file or directory",
        "bad fd: ret=-1 errno=Bad file descriptor",
        "now: recent=1",
    ]


def test_a_signal_handler_interrupts_poll_select_and_epoll_wait(machine, program_lines):
    assert program_lines(machine, ["polltest", "signal"]) == [
        "poll: ret=-1 errno=Interrupted system call handler=1",
        "select: ret=-1 errno=Interrupted system call handler=2 left 4..5s=1",
        "epoll_wait: ret=-1 errno=Interrupted system call handler=3",
        "poll with SA_RESTART: ret=-1 errno=Interrupted system call handler=4 revents=0",
    ]
