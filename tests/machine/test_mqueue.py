"""POSIX message queues in the emulated kernel (kernel_model/ipc/mqueue.c): a static program
(kernel_model/user/static/mqtest.c, musl where installed) runs each case and prints what it saw;
the expected lines are what the same binary printed on the reference Linux 6.1 (real-tracefs)."""


def test_open_names_flags_and_attribute_limits_as_6_1(machine, program_lines):
    # names lookup_one_len refuses, getname's ENOENT and EFAULT, the attributes' limits (root:
    # the hard ones), RLIMIT_MSGQUEUE's EMFILE, O_EXCL, O_WRONLY|O_RDWR, close-on-exec, unlink
    assert program_lines(machine, ["mqtest", "open"]) == [
        'open of a name not in use: ENOENT',
        'open a/b O_CREAT: EACCES',
        'open . O_CREAT: EACCES',
        'open .. O_CREAT: EACCES',
        'open empty name O_CREAT: ENOENT',
        'open bad name address: EFAULT',
        'open bad attr address: EFAULT',
        'open maxmsg 0: EINVAL',
        'open msgsize -1: EINVAL',
        'open maxmsg 65537: EINVAL',
        'open msgsize 16M+1: EINVAL',
        'open past RLIMIT_MSGQUEUE: EMFILE',
        'open of the name after the failures: ENOENT',
        'open O_CREAT|O_EXCL: ok',
        'attributes by default: flags=0 maxmsg=10 msgsize=8192 curmsgs=0',
        'open O_CREAT|O_EXCL again: EEXIST',
        'open O_CREAT of the existing queue: ok',
        'open O_WRONLY|O_RDWR: EINVAL',
        'close-on-exec: 1',
        'open with attributes, O_NONBLOCK: ok',
        'its attributes: flags=0x800 maxmsg=3 msgsize=100 curmsgs=0',
        'unlink: ok',
        'unlink again: ENOENT',
        'unlink a/b: EACCES',
        'unlink the other: ok',
    ]


def test_send_and_receive_by_priority_with_their_errors_as_6_1(machine, program_lines):
    # EINVAL/EMSGSIZE/EFAULT/EBADF, the highest priority first (oldest first within one),
    # O_NONBLOCK's EAGAIN, past timeouts' ETIMEDOUT, poll, the queue file's QSIZE, a queue
    # that outlives its name
    assert program_lines(machine, ["mqtest", "sendrecv"]) == [
        'open: ok',
        'send prio 32768: EINVAL',
        'send 65 bytes: EMSGSIZE',
        'receive into 63 bytes: EMSGSIZE',
        'send bad address: EFAULT',
        'send bad fd: EBADF',
        'send on a pipe: EBADF',
        'receive on a pipe: EBADF',
        'send bad timeout: EINVAL',
        'send on an O_RDONLY fd: EBADF',
        'receive on an O_WRONLY fd: EBADF',
        'poll empty: n=1 in=0 out=1',
        'file empty: QSIZE:0          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'send a1: ok',
        'send b5: ok',
        'send c1: ok',
        'poll full: n=1 in=1 out=0',
        'attributes full: flags=0 maxmsg=3 msgsize=64 curmsgs=3',
        'file full: QSIZE:6          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'send when full, timeout in the past: ETIMEDOUT',
        'set O_NONBLOCK: ok',
        'attributes non-blocking: flags=0x800 maxmsg=3 msgsize=64 curmsgs=3',
        'send when full O_NONBLOCK: EAGAIN',
        'receive: prio=5 text=b5',
        'send d3: ok',
        'receive: prio=3 text=d3',
        'receive: prio=1 text=a1',
        'poll one: n=1 in=1 out=1',
        'receive: prio=1 text=c1',
        'receive empty O_NONBLOCK: EAGAIN',
        'clear O_NONBLOCK: ok',
        'receive empty, timeout in the past: ETIMEDOUT',
        'receive bad timeout: EINVAL',
        'getsetattr mq_flags 1: EINVAL',
        'getsetattr bad fd: EBADF',
        'getsetattr on a pipe: EBADF',
        'send empty message: ok',
        'receive it: prio=7 text=',
        'unlink while open: ok',
        'open after unlink: ENOENT',
        'send after unlink: ok',
        'receive after unlink: prio=2 text=still',
    ]


def test_notify_registration_signal_and_its_end_as_6_1(machine, program_lines):
    # SIGEV_NONE and SIGEV_SIGNAL (SI_MESGQ, its value and sender), EBUSY, another process's
    # NULL, one notification per registration, SIGEV_THREAD's fd errors (no netlink socket),
    # a close by the registered process ends it
    assert program_lines(machine, ["mqtest", "notify"]) == [
        'open: ok',
        'notify sigev_notify 7: EINVAL',
        'notify signal 65: EINVAL',
        'notify bad fd: EBADF',
        'notify bad address: EFAULT',
        'notify SIGEV_THREAD on a pipe: ENOTSOCK',
        'notify SIGEV_THREAD bad fd: EBADF',
        'notify SIGEV_NONE: ok',
        'file: QSIZE:0          NOTIFY:1     SIGNO:0     NOTIFY_PID:(self) len=60',
        'notify again: EBUSY',
        'notify NULL: ok',
        'file: QSIZE:0          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'notify SIGEV_SIGNAL: ok',
        'file: QSIZE:0          NOTIFY:0     SIGNO:10    NOTIFY_PID:(self) len=60',
        'child: notify: EBUSY',
        'child: notify NULL (not its own): ok',
        'file after the child: QSIZE:0          NOTIFY:0     SIGNO:10    NOTIFY_PID:(self) len=60',
        'send: ok',
        'signal: sig=10 code=-3 value=42 pid=self:1',
        'file after the signal: QSIZE:3          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'send to a non-empty queue: ok',
        'notify again after it: ok',
        'receive: prio=1 text=one',
        'receive: prio=1 text=two',
        'send to the emptied queue: ok',
        'signal: sig=10 code=-3 value=42',
        'receive: prio=1 text=three',
        'notify SIGEV_NONE: ok',
        'file after closing another fd: QSIZE:0          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'file after closing the fd: QSIZE:0          NOTIFY:0     SIGNO:0     NOTIFY_PID:0     ',
        'unlink: ok',
    ]


def test_sleepers_are_woken_by_the_other_side_a_signal_and_the_timeout(machine, program_lines):
    # a receiver woken by a send, a sender by a receive (its message queued for it), EINTR, an
    # absolute CLOCK_REALTIME timeout in the future
    assert program_lines(machine, ["mqtest", "block"]) == [
        'open: ok',
        'child asleep: 1',
        'send: ok',
        'child: blocking receive: prio=4 text=hello',
        'child: 0',
        'attributes: flags=0 maxmsg=1 msgsize=16 curmsgs=0',
        'send to fill: ok',
        'child asleep: 1',
        'receive: prio=1 text=first',
        'child: blocking send: ok',
        'child: 0',
        'receive: prio=9 text=second',
        'child asleep: 1',
        'child: receive interrupted: EINTR',
        'child: 0',
        'child: receive with a timeout: ETIMEDOUT',
        'child: 0',
        'attributes: flags=0 maxmsg=1 msgsize=16 curmsgs=0',
        'unlink: ok',
    ]


def test_another_users_access_as_6_1(machine, program_lines):
    # the queue's mode against another user; the sticky directory's EPERM at unlink
    assert program_lines(machine, ["mqtest", "perm"]) == [
        'open 0640: ok',
        'other user: open O_RDONLY: EACCES',
        'other user: open O_WRONLY: EACCES',
        'other user: unlink: EPERM',
        'other user: create its own: ok',
        'child: 0',
        "open the other user's O_RDWR (root): ok",
        "unlink the other user's (root): ok",
        'unlink: ok',
    ]


def test_the_queue_file_as_6_1(machine, program_lines):
    # its inode (mode, 80 bytes, nlink 0 once unlinked), the mqueue file system's statfs, its
    # /proc/self/fd link in the internal mount, read at an offset, write's EINVAL (no ->write)
    assert program_lines(machine, ["mqtest", "file"]) == [
        'open: ok',
        'send: ok',
        'fstat: ok',
        'fstat: mode=100640 nlink=1 size=80 uid=0 blksize=4096',
        'fstatfs: ok',
        'fstatfs: type=0x19800202 bsize=4096 namelen=255',
        'fd link: /mqt-f',
        'lseek: ok',
        'read from 6: 3         ',
        'write: EINVAL',
        'unlink: ok',
        'fstat after unlink: ok',
        'fstat: nlink=0',
        'fd link: /mqt-f (deleted)',
        'receive: prio=1 text=abc',
    ]


def test_an_unprivileged_users_limits_as_6_1(machine, program_lines):
    # msg_max 10 and msgsize_max 8192 (root: the hard limits), queues_max 256 (ENOSPC), and
    # RLIMIT_MSGQUEUE counting a queue's messages and 6.1's msg_msg and tree node sizes (EMFILE)
    assert program_lines(machine, ["mqtest", "limits"]) == [
        'user: maxmsg 11: EINVAL',
        'user: msgsize 8193: EINVAL',
        'user: queues made 256, then ENOSPC',
        'user: RLIMIT_MSGQUEUE 291: queues made 3, then EMFILE',
        'child: 0',
        'root: maxmsg 11 msgsize 8193: ok',
        'unlink: ok',
    ]


def test_a_poller_is_woken_by_a_send(machine, program_lines):
    assert program_lines(machine, ["mqtest", "pollwait"]) == [
        'open: ok',
        'child asleep: 1',
        'send: ok',
        'child: 0',
        'unlink: ok',
    ]
