"""Shared mappings of tmpfs files in the emulated kernel (fs/shmem.c's shmem_mmap and shmem_fault,
kernel/mmap.c): a static program (kernel_model/user/static/shmtest.c) runs each case and prints
what it saw; the expected lines are what the same binary printed on the reference Linux 6.1
(real-tracefs, its tmpfs case on a tmpfs mounted for it).  A write through a MAP_SHARED mapping
is the file's own page: read(2) sees it, a forked child's and another mapping's writes are seen
through it; truncation unmaps what is past the end (SIGBUS there); shared anonymous memory is a
tmpfs file's ("/dev/zero (deleted)")."""


def run(run_program, machine, *argv):
    status, out = run_program(machine, ["shmtest", *argv], timeout=120.0)
    assert status == 0, out
    return out.decode().splitlines()


def test_memfd_mapping_is_the_files_pages_and_its_seals_as_6_1(machine, run_program):
    # a write through the mapping read by read(2), a pwrite seen through it, a forked child's
    # write and another mapping's; F_SEAL_WRITE refused while a writable mapping exists, then
    # no writable mapping (a read-only one may not become writable), O_RDONLY's EACCES
    assert run(run_program, machine, "memfd") == [
        'ftruncate 8192: ok',
        'mmap MAP_SHARED rw: ok',
        "read after a write to the mapping: 19 'through the mapping'",
        "mapping after pwrite: 'by write(2)'",
        'forked child writes the mapping: exit 0',
        "mapping after the child: 'from the child'",
        "read after the child: 14 'from the child'",
        'child maps the file itself: exit 0',
        "mapping after the child's mapping: 'the child's own mapping'",
        'munmap: ok',
        "read after munmap: 19 'through the mapping'",
        'map again: ok',
        'F_SEAL_WRITE while mapped writable: EBUSY',
        'F_SEAL_WRITE after munmap: ok',
        'sealed: mmap MAP_SHARED rw: EPERM',
        'sealed: write: EPERM',
        'sealed: mmap MAP_SHARED r: ok',
        'sealed mapping: mprotect rw: EACCES',
        'O_RDONLY: mmap MAP_SHARED rw: EACCES',
        'O_RDONLY: mmap MAP_SHARED r: ok',
        "O_RDONLY mapping reads: 'through the mapping'",
        'O_RDONLY mapping: mprotect rw: EACCES',
    ]


def test_tmpfs_file_mapping_as_6_1(machine, run_program):
    # a file on /dev/shm (a tmpfs): what was written through the mapping stays the file's
    # after munmap and close
    assert run(run_program, machine, "file", "/dev/shm") == [
        'open: ok',
        'ftruncate 8192: ok',
        'mmap MAP_SHARED rw: ok',
        "read after a write to the mapping: 19 'through the mapping'",
        "mapping after pwrite: 'by write(2)'",
        'forked child writes the mapping: exit 0',
        "mapping after the child: 'from the child'",
        "read after the child: 14 'from the child'",
        'child maps the file itself: exit 0',
        "mapping after the child's mapping: 'the child's own mapping'",
        'munmap: ok',
        "read after munmap: 19 'through the mapping'",
        "reopened: read: 14 'from the child'",
    ]


def test_truncate_unmaps_past_the_end_sigbus_as_6_1(machine, run_program):
    # a page wholly past the end: SIGBUS; after ftruncate shrinks the file its mapped page
    # goes too (SIGBUS), and growing it again gives a new zeroed page
    assert run(run_program, machine, "truncate") == [
        'mmap 3 pages of 2: ok',
        'touch page 2 (past the end): killed by signal 7',
        'ftruncate 4096: ok',
        'touch page 1 after the truncate: killed by signal 7',
        'read 0',
        'touch page 0 after the truncate: exit 0',
        'ftruncate 8192: ok',
        'page 1 after growing again: 0',
    ]


def test_shared_anonymous_memory_is_a_tmpfs_file_as_6_1(machine, run_program):
    assert run(run_program, machine, "anon") == [
        'mmap MAP_SHARED|MAP_ANONYMOUS: ok',
        'forked child writes: exit 0',
        "after the child: 'parent' 'from the child'",
        'maps: rw-s 00000000 /dev/zero (deleted)',
    ]
