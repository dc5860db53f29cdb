"""process_vm_readv/process_vm_writev (mm/process_vm_access.c): a guest program reads and writes
a forked child's memory, with each of 6.1's errors, and prints what the same static binary
printed on the reference 6.1 (real-tracefs, glibc's and musl's builds alike)."""

PVMTEST_61 = [
    "readv two iovecs each side: 35",
    "read: the chil|d's....and its second page.",
    "readv, the second remote iovec unmapped: 5",
    "readv, only unmapped: EFAULT",
    "readv with flags 1: EINVAL",
    "readv of no such pid: ESRCH",
    "readv of its own memory: 4",
    "readv, a negative local length: EINVAL",
    "readv, a negative remote length: EINVAL",
    "readv, a zero remote length: 0",
    "readv into an unmapped local buffer: EFAULT",
    "readv, 1025 remote iovecs: EINVAL",
    "readv, 1025 local iovecs: EINVAL",
    "readv, no local iovec: 0",
    "readv of a kernel thread (kthreadd): ESRCH",
    "writev to the child: 22",
    "writev to its read-only data: EFAULT",
    "the child saw the write: yes",
    "readv of a root process as nobody: EPERM",
]


def test_another_processs_memory_read_and_written_as_6_1(machine, program_lines):
    assert program_lines(machine, ["pvmtest"]) == PVMTEST_61
