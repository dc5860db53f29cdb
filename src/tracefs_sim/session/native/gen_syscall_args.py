#!/usr/bin/env python3
"""Generate syscall_args.h: what the supervisor copies behind each system call's pointer
arguments, from the kernel model's syscall table (kernel_model/kernel/syscall_events.h, itself
generated from Linux 6.1's SYSCALL_DEFINEs), so that the call runs in the emulated kernel with
the bytes it reads in the task's user memory there.

    gen_syscall_args.py [SYSCALL_EVENTS_H] > syscall_args.h
    gen_syscall_args.py --review [SYSCALL_EVENTS_H]

The rules follow the declared types (SYSCALL_DEFINE's constness is not to be trusted: mount's
strings and nanosleep's request are declared without const):
- `const char *const *` (argv, envp): the strings, packed (STRV);
- a `char *` (const or not) with no length argument after it (before another pointer): a
  NUL-terminated string (a path, a name: STR); with one, a buffer: what a `const` one holds is copied (BUF_IN: write's `buf`),
  a writable one is memory the call may write freely in the emulated kernel (OUT: read's);
- `void *` likewise with a length (BUF_IN / OUT); without one, nothing;
- a pointer to a fixed-size type (a timespec, a struct stat, an int): its bytes, both ways
  (STRUCT_IN: a few dozen bytes, read whether the call reads or writes them);
- any other pointer: memory the call may write (OUT, 4096 bytes).
Where a declaration says too little (a length before the pointer, an array of structs, a size
inside the struct, a pointer the call keeps rather than reads), OVERRIDES says what 6.1's code
does with it.  `--review` prints every pointer argument's rule, to check against 6.1's
SYSCALL_DEFINEs.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[4] / "kernel_model" / "kernel" / "syscall_events.h"
# x86-64 sizes of the fixed-size types behind pointer arguments.
SIZES = {
    "int": 4, "unsigned int": 4, "unsigned": 4, "u32": 4, "uid_t": 4, "gid_t": 4, "pid_t": 4,
    "loff_t": 8, "unsigned long": 8, "u64": 8, "size_t": 8, "timer_t": 4, "aio_context_t": 8,
    "struct stat": 144, "struct statx": 256, "struct rusage": 144, "struct statfs": 120,
    "struct new_utsname": 390, "struct sysinfo": 112, "struct tms": 32, "siginfo_t": 128,
    "struct siginfo": 128, "struct pollfd": 8, "fd_set": 128, "struct ustat": 32,
    "struct __kernel_timespec": 16, "struct timespec": 16, "sigset_t": 8, "struct sigaction": 32,
    "struct rlimit": 16, "struct rlimit64": 16, "struct __kernel_itimerspec": 32,
    "struct __kernel_old_timeval": 16, "struct timezone": 8, "struct sched_param": 4,
    "struct epoll_event": 12, "struct __kernel_old_itimerval": 32, "struct utimbuf": 16,
    "struct sigevent": 64, "struct open_how": 24, "struct clone_args": 88, "struct mount_attr": 32,
    "struct rseq": 32, "struct __aio_sigset": 16, "struct cachestat_range": 16,
    "stack_t": 24, "struct __kernel_timex": 208, "struct mq_attr": 64, "struct iocb": 64,
    "struct io_uring_params": 120,
}
LENGTHS = {"count", "len", "bufsiz", "size", "nbytes", "length", "cnt", "sz"}

# mirror.c's ARG_*: BUF_IN copies the length argument's bytes plus `size`; ARRAY_IN/ARRAY_OUT
# are the length argument's count of `size`-byte elements; SIZED_IN a struct whose size is its
# first u32 (`size` when that is 0); OUT_PAGES one byte per page of the length argument's bytes;
# IOV the length argument's count of struct iovec, the buffers they name the kernel's window.
KIND = {"STR": 1, "BUF_IN": 2, "STRUCT_IN": 3, "STRV": 4, "OUT": 5, "ARRAY_IN": 6, "ARRAY_OUT": 7,
        "SIZED_IN": 8, "OUT_PAGES": 9, "IOV": 10}

# What the declarations' types do not say, from 6.1's sources: call -> {argument: (kind, length
# argument or None, size)}; kind None: the call keeps or ignores the pointer, which is passed as
# the host's.
OVERRIDES: dict[str, dict[str, tuple[str | None, str | None, int]]] = {
    # fs/read_write.c do_readv/do_writev (import_iovec): vlen struct iovec in, then the
    # buffers they name read or written
    "readv": {"vec": ("IOV", "vlen", 16)},
    "writev": {"vec": ("IOV", "vlen", 16)},
    "preadv": {"vec": ("IOV", "vlen", 16)},
    "pwritev": {"vec": ("IOV", "vlen", 16)},
    "preadv2": {"vec": ("IOV", "vlen", 16)},
    "pwritev2": {"vec": ("IOV", "vlen", 16)},
    # fs/select.c do_sys_poll: copies nfds struct pollfd in, writes their revents back
    "poll": {"ufds": ("ARRAY_IN", "nfds", 8)},
    "ppoll": {"ufds": ("ARRAY_IN", "nfds", 8)},
    # fs/pipe.c do_pipe2, net/socket.c __sys_socketpair: put_user of two fds (int fd[2])
    "pipe": {"fildes": ("STRUCT_IN", None, 8)},
    "pipe2": {"fildes": ("STRUCT_IN", None, 8)},
    "socketpair": {"usockvec": ("STRUCT_IN", None, 8)},
    # mm/mincore.c: one byte per page of [start, start + len), PAGE_ALIGN(len) >> PAGE_SHIFT
    "mincore": {"vec": ("OUT_PAGES", "len", 0)},
    # ipc/shm.c do_shmat, ksys_shmdt: shmaddr is where to attach or detach, never read
    "shmat": {"shmaddr": (None, None, 0)},
    "shmdt": {"shmaddr": (None, None, 0)},
    # ipc/shm.c, ipc/msg.c: IPC_SET reads, IPC_STAT writes struct shmid64_ds (112) and
    # struct msqid64_ds (120), the largest of what their commands copy
    "shmctl": {"buf": ("STRUCT_IN", None, 112)},
    "msgctl": {"buf": ("STRUCT_IN", None, 120)},
    # ipc/sem.c do_semtimedop: nsops struct sembuf (6 bytes) in
    "semop": {"tsops": ("ARRAY_IN", "nsops", 6)},
    "semtimedop": {"tsops": ("ARRAY_IN", "nsops", 6)},
    # ipc/msg.c do_msgsnd: the mtype (a long) then msgsz bytes of text
    "msgsnd": {"msgp": ("BUF_IN", "msgsz", 8)},
    # net/socket.c move_addr_to_kernel: the address's addrlen bytes in
    "connect": {"uservaddr": ("BUF_IN", "addrlen", 0)},
    "bind": {"umyaddr": ("BUF_IN", "addrlen", 0)},
    # net/socket.c __sys_sendto: import_single_range of buff (read), the address in
    "sendto": {"buff": ("BUF_IN", "len", 0), "addr": ("BUF_IN", "addr_len", 0)},
    # net/socket.c __sys_setsockopt: optlen bytes of optval in (no string)
    "setsockopt": {"optval": ("BUF_IN", "optlen", 0)},
    # __sys_getsockopt: optval is written, up to *optlen bytes
    "getsockopt": {"optval": ("OUT", None, 4096)},
    # fs/open.c do_sys_truncate: a path; length is the file's new size, not the path's
    "truncate": {"path": ("STR", None, 0)},
    # kernel/groups.c: gidsetsize gid_t written (getgroups) or read (setgroups)
    "getgroups": {"grouplist": ("ARRAY_OUT", "gidsetsize", 4)},
    "setgroups": {"grouplist": ("ARRAY_IN", "gidsetsize", 4)},
    # kernel/capability.c: the header (version, pid) read, its version written back; capget
    # writes and capset reads the data, up to _KERNEL_CAPABILITY_U32S (2) struct
    # __user_cap_data_struct (12 bytes each)
    "capget": {"header": ("STRUCT_IN", None, 8), "dataptr": ("OUT", None, 24)},
    "capset": {"header": ("STRUCT_IN", None, 8), "data": ("STRUCT_IN", None, 24)},
    # kernel/sys.c: len bytes of the new name in
    "sethostname": {"name": ("BUF_IN", "len", 0)},
    "setdomainname": {"name": ("BUF_IN", "len", 0)},
    # kernel/module/main.c copy_module_from_user: len bytes of the image in
    "init_module": {"umod": ("BUF_IN", "len", 0)},
    # kernel/sched/core.c get_user_cpu_mask: min(len, cpumask_size()) bytes in; getaffinity
    # writes that many (the length comes before the pointer)
    "sched_setaffinity": {"user_mask_ptr": ("BUF_IN", "len", 0)},
    "sched_getaffinity": {"user_mask_ptr": ("OUT", "len", 0)},
    # kernel/sched/core.c sched_copy_attr: the struct's own size field (0: SCHED_ATTR_SIZE_VER0,
    # 48; up to VER1's 56, larger ones with zeros past it, E2BIG past PAGE_SIZE)
    "sched_setattr": {"uattr": ("SIZED_IN", None, 48)},
    # sched_attr_copy_to_user: min(usize, sizeof(struct sched_attr)) bytes written
    "sched_getattr": {"uattr": ("OUT", "usize", 0)},
    # kernel/fork.c, kernel/futex/syscalls.c: the pointer is kept (clear_child_tid,
    # robust_list), read or written only at the task's exit
    "set_tid_address": {"tidptr": (None, None, 0)},
    "set_robust_list": {"head": (None, None, 0)},
    # fs/eventpoll.c ep_send_events: up to maxevents struct epoll_event (12, packed) written
    "epoll_wait": {"events": ("ARRAY_OUT", "maxevents", 12)},
    "epoll_pwait": {"events": ("ARRAY_OUT", "maxevents", 12)},
    "epoll_pwait2": {"events": ("ARRAY_OUT", "maxevents", 12)},
    # ipc/mqueue.c: msg_len bytes of the message in (send) or out (receive)
    "mq_timedsend": {"u_msg_ptr": ("BUF_IN", "msg_len", 0)},
    "mq_timedreceive": {"u_msg_ptr": ("OUT", "msg_len", 0)},
    # security/keys/keyctl.c: plen bytes of payload in
    "add_key": {"_payload": ("BUF_IN", "plen", 0)},
    # mm/migrate.c kernel_move_pages: nr_pages addresses and nodes in, statuses out
    "move_pages": {"pages": ("ARRAY_IN", "nr_pages", 8), "nodes": ("ARRAY_IN", "nr_pages", 4),
                   "status": ("ARRAY_OUT", "nr_pages", 4)},
    # fs/fhandle.c: struct file_handle, its handle_bytes (at most MAX_HANDLE_SZ, 128) after
    # 8 bytes of header, read and written
    "name_to_handle_at": {"handle": ("STRUCT_IN", None, 8 + 128)},
    "open_by_handle_at": {"handle": ("STRUCT_IN", None, 8 + 128)},
    # kernel/sys.c getcpu: the cache argument is unused since 2.6.24
    "getcpu": {"unused": (None, None, 0)},
    # fs/open.c, fs/namespace.c: copy_struct_from_user of usize bytes
    "openat2": {"how": ("BUF_IN", "usize", 0)},
    "mount_setattr": {"uattr": ("BUF_IN", "usize", 0)},
    # mm/madvise.c process_madvise: vlen struct iovec (ranges of the target, not read) in
    "process_madvise": {"vec": ("ARRAY_IN", "vlen", 16)},
    # security/landlock/syscalls.c: size bytes of the ruleset's attributes in; a rule's
    # struct landlock_path_beneath_attr (12, packed) in
    "landlock_create_ruleset": {"attr": ("BUF_IN", "size", 0)},
    "landlock_add_rule": {"rule_attr": ("STRUCT_IN", None, 12)},
    # kernel/futex/syscalls.c: nr_futexes struct futex_waitv (24) in
    "futex_waitv": {"waiters": ("ARRAY_IN", "nr_futexes", 24)},
}


def parse(text: str) -> dict[int, tuple[str, list[tuple[str, str]]]]:
    calls = {}
    for m in re.finditer(r"^SC(\d)\((\d+), (\w+)((?:, [^,()]+)*)\)\s*$", text, re.M):
        nargs, nr, name, rest = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        parts = [p.strip() for p in rest.split(",")[1:]] if rest else []
        args = list(zip(parts[0::2], parts[1::2]))
        assert len(args) == nargs, m.group(0)
        calls[nr] = (name, args)
    return calls


def rule(args: list[tuple[str, str]], i: int) -> tuple[int, int, int]:
    """(kind, length argument or -1, fixed size) for argument i."""
    ctype, name = args[i]
    if "*" not in ctype:
        return 0, -1, 0
    length = -1	# the length argument after it, unless another pointer comes first (getxattr's path, name)
    for j in range(i + 1, len(args)):
        if "*" in args[j][0]:
            break
        if args[j][1] in LENGTHS:
            length = j
            break
    const = ctype.startswith("const ")
    base = ctype.removeprefix("const ")[:-1].strip()
    if ctype == "const char *const *":
        return KIND["STRV"], -1, 0
    if base in ("char", "void", "unsigned char"):
        if length >= 0:
            return (KIND["BUF_IN"] if const else KIND["OUT"]), length, 0
        return (KIND["STR"], -1, 0) if base == "char" else (0, -1, 0)
    size = SIZES.get(base)
    if size:
        return KIND["STRUCT_IN"], -1, size
    return KIND["OUT"], length, 4096


def rules_of(name: str, args: list[tuple[str, str]]) -> list[tuple[int, int, int]]:
    """Each argument's (kind, length argument or -1, size): OVERRIDES', else rule()'s."""
    names = [arg for _, arg in args]
    rules = []
    for i, (_, arg) in enumerate(args):
        if arg in OVERRIDES.get(name, {}):
            kind, length, size = OVERRIDES[name][arg]
            rules.append((KIND[kind] if kind else 0, names.index(length) if length else -1, size))
        else:
            rules.append(rule(args, i))
    return rules


def review(calls: dict[int, tuple[str, list[tuple[str, str]]]]) -> None:
    """Each call's pointer arguments and their rules, one call a line."""
    kinds = {v: k for k, v in KIND.items()}
    for nr in sorted(calls):
        name, args = calls[nr]
        cells = [f"{arg} ({ctype}): {kinds.get(kind, 'NONE')}"
                 + (f"[{args[length][1]}]" if length >= 0 else "") + (f" {size}" if size else "")
                 for (ctype, arg), (kind, length, size) in zip(args, rules_of(name, args)) if "*" in ctype]
        if cells:
            print(nr, name, "| ".join(cells))


def main(argv: list[str]) -> int:
    options = [a for a in argv[1:] if a.startswith("--")]
    source = next((Path(a) for a in argv[1:] if not a.startswith("--")), DEFAULT)
    calls = parse(source.read_text())
    assert all(name in {n for n, _ in calls.values()} for name in OVERRIDES), "an override of no call"
    if "--review" in options:
        review(calls)
        return 0
    out = ["/* Generated by gen_syscall_args.py from kernel_model/kernel/syscall_events.h; do not edit. */",
           "/* [nr][arg] = { kind, length argument (or -1), fixed size } (mirror.c) */",
           f"#define SYSCALL_ARGS_NR {max(calls) + 1}",
           "static const struct arg_rule syscall_args[SYSCALL_ARGS_NR][6] = {"]
    for nr in sorted(calls):
        name, args = calls[nr]
        rules = rules_of(name, args)
        if not any(kind for kind, _, _ in rules):
            continue
        cells = ", ".join(f"{{ {k}, {a}, {s} }}" for k, a, s in rules)
        out.append(f"\t[{nr}] = {{ {cells} }},\t/* {name} */")
    out.append("};")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
