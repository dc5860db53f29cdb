"""The small calls of issue 15 (sethostname, setdomainname, sysfs, ustat, kcmp, the pkey calls,
futex_waitv, process_madvise, process_mrelease, restart_syscall, set_mempolicy, get_mempolicy,
set_mempolicy_home_node, migrate_pages), driven by the guest program `sysmisc`
(kernel_model/user/sysmisc.c).  Each family's expected output is what the same binary printed on a real Linux 6.1
(shared/tools/real-tracefs, a QEMU cpu without protection keys and one NUMA node, as the
model's), but for what is the model's own: its first node name, its file system types
(sysfs(2) must list /proc/filesystems')."""
import pytest


@pytest.fixture
def machine(make_machine):
    return make_machine(cpus=2)


def sysmisc(machine, run_program, family):
    status, out = run_program(machine, ["sysmisc", family], timeout=60)
    assert status == 0, out
    return out.decode()


EXPECTED = {
    "mempolicy": """\
get_mempolicy = 0: mode 0 mask 0 0
get_mempolicy(MEMS_ALLOWED) = 0: mode 0 mask 1 0
set_mempolicy(BIND, node 0) = 0
get_mempolicy = 0: mode 2 mask 1 0
get_mempolicy(NODE) of a bind policy = -22
set_mempolicy(BIND, node 1) = -22
set_mempolicy(BIND, no node) = -22
set_mempolicy(BIND, maxnode 1) = -22
set_mempolicy(INTERLEAVE, nodes 0-1) = 0
get_mempolicy = 0: mode 3 mask 1 0
get_mempolicy(NODE) of interleave = 0
its next node 0
set_mempolicy(PREFERRED, no node) = 0
get_mempolicy = 0: mode 4 mask 0 0
set_mempolicy(PREFERRED, nodes 0-1) = 0
get_mempolicy = 0: mode 1 mask 1 0
set_mempolicy(PREFERRED|STATIC, no node) = -22
set_mempolicy(LOCAL, node 0) = -22
set_mempolicy(LOCAL|RELATIVE) = -22
set_mempolicy(LOCAL) = 0
get_mempolicy = 0: mode 4 mask 0 0
set_mempolicy(BIND|STATIC, nodes 0-1) = 0
get_mempolicy = 0: mode 32770 mask 3 0
set_mempolicy(BIND|STATIC, node 1) = -22
set_mempolicy(BIND|RELATIVE, node 5) = 0
get_mempolicy = 0: mode 16386 mask 32 0
get_mempolicy in a forked child = 0: mode 16386 mask 32 0
set_mempolicy(BIND|STATIC|RELATIVE) = -22
set_mempolicy(BIND|NUMA_BALANCING) = 0
set_mempolicy(INTERLEAVE|NUMA_BALANCING) = -22
set_mempolicy(mode 6) = -22
set_mempolicy(mode -1) = -22
set_mempolicy(DEFAULT, node 0) = -22
set_mempolicy(BIND, bad mask) = -14
set_mempolicy(BIND, maxnode past a page of bits) = -22
set_mempolicy(BIND, nodes 0 and 1920) = -22
set_mempolicy(BIND, nodes 0 and 64) = 0
set_mempolicy(BIND, node 0 of 2048) = 0
set_mempolicy(DEFAULT) = -22
get_mempolicy = 0: mode 2 mask 1 0
get_mempolicy(ADDR) of a mapped page = 0: mode 0 mask 0 0
get_mempolicy(NODE|ADDR) of a mapped page = 0
its node 0
get_mempolicy(ADDR) unmapped = -14
get_mempolicy(addr without ADDR) = -22
get_mempolicy(flags 8) = -22
get_mempolicy(MEMS_ALLOWED|NODE) = -22
get_mempolicy(NODE) of the default = -22
get_mempolicy(maxnode 0) = -22
get_mempolicy(maxnode past a page) = -22
get_mempolicy(a page of bits) = 0
get_mempolicy(bad mode pointer) = -14
get_mempolicy(bad mask) = -14
get_mempolicy(no pointers) = 0
set_mempolicy_home_node(a mapped page, node 0) = -2
set_mempolicy_home_node(unmapped, node 0) = -2
set_mempolicy_home_node(len 0) = 0
set_mempolicy_home_node(node 1) = -22
set_mempolicy_home_node(node 5000) = -22
set_mempolicy_home_node(flags 1) = -22
set_mempolicy_home_node(unaligned) = -22
set_mempolicy_home_node(past the end of memory) = -22
migrate_pages(root parent) as uid 1000 = -1
migrate_pages(self, 0 to 0-1) as uid 1000 = -1
migrate_pages(self, 0 to 0) as uid 1000 = 0
migrate_pages(self, 0 to 0) = 0
migrate_pages(self, 1 to 0) = 0
migrate_pages(self, 0 to 0-1) = 0
migrate_pages(self, 0 to 1) = -22
migrate_pages(self, 0 to none) = -22
migrate_pages(no such pid) = -3
migrate_pages(bad old mask) = -14
migrate_pages(bad new mask) = -14
migrate_pages(maxnode past a page of bits) = -22
""",
    "pidfd": """\
process_madvise(child, 2 segments, WILLNEED) = 12288
process_madvise(child, COLD) = 12288
process_madvise(child, PAGEOUT) = 4096
process_madvise(self, COLD) = 12288
process_madvise(child, then an unmapped segment) = 12288
process_madvise(child, an unmapped segment first) = -12
process_madvise(child, no segments) = 0
process_madvise(child, DONTNEED) = -22
process_madvise(child, flags 1) = -22
process_madvise(child, 1025 segments) = -22
process_madvise(child, bad vector) = -14
process_madvise(not a pidfd) = -9
process_madvise(closed fd) = -9
process_madvise(not a pidfd, DONTNEED) = -9
process_madvise(root parent) as uid 1000 = -13
process_madvise(self) as uid 1000 = -1
process_mrelease(child, flags 1) = -22
process_mrelease(a live child) = -22
process_mrelease(not a pidfd) = -9
process_mrelease(closed fd) = -9
process_mrelease(a reaped child) = -3
process_madvise(a reaped child) = -3
""",
    "restart": "restart_syscall = -4\n",
    "futex_waitv": """\
futex_waitv(flags 1) = -22
futex_waitv(0 waiters) = -22
futex_waitv(129 waiters) = -22
futex_waitv(NULL waiters) = -22
futex_waitv(bad waiters) = -14
futex_waitv(timeout on CLOCK_BOOTTIME) = -22
futex_waitv(bad timeout pointer) = -14
futex_waitv(timeout nsec 1e9) = -22
futex_waitv(a past monotonic deadline) = -110
futex_waitv(a past realtime deadline, private) = -110
futex_waitv(second word not its value) = -11
futex_waitv(a waiter without FUTEX_32) = -22
futex_waitv(a waiter with an unknown flag) = -22
futex_waitv(__reserved set) = -22
futex_waitv(unaligned word) = -22
futex_waitv(unmapped word) = -14
FUTEX_WAKE of the second word = 1, the waiter's futex_waitv = 1
""",
    "uts": """\
uname = 0
nodename 'tracefs-sim' domainname '(none)'
sethostname(guest-node) = 0
setdomainname(example.org) = 0
uname = 0
nodename 'guest-node' domainname 'example.org'
sethostname(len 3 of a longer string) = 0
sethostname(64 bytes) = 0
uname = 0
nodename '0123456789012345678901234567890123456789012345678901234567890123' domainname 'example.org'
sethostname(len 65) = -22
sethostname(len -1) = -22
sethostname(bad pointer) = -14
setdomainname(len 65) = -22
setdomainname(bad pointer) = -14
setdomainname(len 0) = 0
sethostname as uid 1000 = -1
setdomainname as uid 1000 = -1
uname = 0
nodename '0123456789012345678901234567890123456789012345678901234567890123' domainname ''
""",
    "ustat": """\
ustat(/) = 0: free blocks as statfs yes, free inodes as statfs yes, names empty yes
ustat(/proc) = 0: free blocks as statfs yes, free inodes as statfs yes, names empty yes
ustat(no such device) = -22
ustat(/, bad buffer) = -14
""",
    "kcmp": """\
kcmp(self, self, 1) = 0
kcmp(self, self, 2) = 0
kcmp(self, self, 3) = 0
kcmp(self, self, 4) = 0
kcmp(self, self, 5) = 0
kcmp(self, child, KCMP_VM): differ, reversed the other order yes
kcmp(self, child, KCMP_FILES): differ
kcmp(self, child, KCMP_FS): differ
kcmp(self, child, KCMP_SIGHAND): differ
kcmp(self, child, KCMP_FILE, the forked fd) = 0
kcmp(self, self, KCMP_FILE, fd and its dup) = 0
kcmp(self, self, KCMP_FILE, two opens of a file): differ
kcmp(self, self, KCMP_FILE, a closed fd) = -9
kcmp(self, self, KCMP_SYSVSEM) = 0
kcmp(self, self, 8) = -22
kcmp(self, self, -1) = -22
kcmp(self, no such pid, KCMP_VM) = -3
kcmp(no such pid, self, 8) = -3
epoll_ctl(ADD, the pipe) = 0
kcmp(EPOLL_TFD, the set's target file itself) = 0
kcmp(EPOLL_TFD, the child's fd of it) = 0
kcmp(EPOLL_TFD, another file): differ
kcmp(EPOLL_TFD, toff 1) = -2
kcmp(EPOLL_TFD, an fd not in the set) = -2
kcmp(EPOLL_TFD, efd not an epoll set) = -22
kcmp(EPOLL_TFD, efd closed) = -9
kcmp(EPOLL_TFD, idx1 closed) = -9
kcmp(EPOLL_TFD, bad slot) = -14
kcmp(no such pid, self, EPOLL_TFD, bad slot) = -3
kcmp(root parent, self, KCMP_VM) as uid 1000 = -1
kcmp(self, self, KCMP_VM) as uid 1000 = 0
""",
    "pkey": """\
pkey_alloc(0, 0) = -28
pkey_alloc(0, PKEY_DISABLE_WRITE) = -28
pkey_alloc(flags 1, 0) = -22
pkey_alloc(0, init_val 4) = -22
pkey_free(0) = -22
pkey_free(1) = -22
pkey_free(-1) = -22
pkey_mprotect(key -1) = 0
pkey_mprotect(key 0) = -22
pkey_mprotect(key 1) = -22
pkey_mprotect(key 0, unaligned start) = -22
pkey_mprotect(key 0, len 0) = 0
pkey_mprotect(key -1, unmapped) = -12
mprotect back to read-write = 0
""",
}


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_family_as_linux_6_1(machine, run_program, family):
    assert sysmisc(machine, run_program, family) == EXPECTED[family]


def test_sysfs_lists_the_registered_types_in_their_order(machine, run_program):
    out = sysmisc(machine, run_program, "sysfs").splitlines()
    status, proc = run_program(machine, ["cat", "/proc/filesystems"])
    assert status == 0
    names = [line.split("\t")[1] for line in proc.decode().splitlines()]
    assert out[0] == f"sysfs(3) = {len(names)}"
    assert out[1:1 + len(names)] == [f"sysfs(2, {i}) = 0 '{n}', sysfs(1, '{n}') = {i}" for i, n in enumerate(names)]
    assert out[1 + len(names):] == [
        "sysfs(2, count) = -22", "sysfs(2, 0, bad buffer) = -14", "sysfs(1, nosuchfs) = -22",
        "sysfs(1, bad pointer) = -14", "sysfs(0) = -22", "sysfs(4) = -22"]


def test_a_new_node_name_is_what_uname_reports_to_every_task(machine, run_program):
    sysmisc(machine, run_program, "uts")
    status, out = run_program(machine, ["sysmisc", "uts"])
    assert status == 0
    assert out.decode().splitlines()[1] == ("nodename '0123456789012345678901234567890123456789012345678901234567890123'"
                                            " domainname ''")
