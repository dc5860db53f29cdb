"""Shared mappings of tmpfs files in the emulated kernel (fs/shmem.c's shmem_mmap and shmem_fault,
kernel/mmap.c): a static program (kernel_model/user/static/shmtest.c) runs each case and prints
what it saw; the expected lines are what the same binary printed on the reference Linux 6.1
(real-tracefs, its tmpfs case on a tmpfs mounted for it).  A write through a MAP_SHARED mapping
is the file's own page: read(2) sees it, a forked child's and another mapping's writes are seen
through it; truncation unmaps what is past the end (SIGBUS there); shared anonymous memory is a
tmpfs file's ("/dev/zero (deleted)").  System V shared memory (kernel_model/ipc/shm.c) is a tmpfs
file's pages attached by shmat."""


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


def test_sysv_shm_calls_their_errors_and_permissions_as_6_1(machine, run_program):
    # shmget's EINVAL/EEXIST/ENOENT/EACCES, shmat's address rules (SHM_RND, SHM_REMAP,
    # SHM_RDONLY), a fork's inherited attach and the child's own (nattch), shmdt, IPC_INFO,
    # SHM_INFO, SHM_STAT(_ANY), IPC_SET, SHM_LOCK/SHM_UNLOCK, another user's EACCES and EPERM,
    # /proc/sysvipc/shm, and IPC_RMID while attached: SHM_DEST, key private, gone at the last shmdt
    assert run(run_program, machine, "sysv") == [
        'shmget of a key not in use: ENOENT',
        'shmget size 0: EINVAL',
        'shmget IPC_CREAT: ok',
        'shmget IPC_CREAT|IPC_EXCL again: EEXIST',
        'shmget bigger than it: EINVAL',
        'shmget smaller: same id 1',
        'shmget IPC_PRIVATE: new id 1',
        'new IPC_STAT: key=0x5e9f00d mode=600 segsz=10000 nattch=0 cpid_is_me=1 lpid_is_me=0 atime>0=0 dtime>0=0',
        'shmat id -1: EINVAL',
        'shmat no such id: EINVAL',
        'shmat SHM_REMAP without an address: EINVAL',
        'shmat: ok',
        'attached IPC_STAT: key=0x5e9f00d mode=600 segsz=10000 nattch=1 cpid_is_me=1 lpid_is_me=1 atime>0=1 dtime>0=0',
        'maps: rw-s 00000000 ino_is_id=1 /SYSV05e9f00d (deleted)',
        "child: inherited reads 'hello shm'",
        'child (inherited + its own) IPC_STAT: key=0x5e9f00d mode=600 segsz=10000 nattch=3 cpid_is_me=0 lpid_is_me=1 atime>0=1 dtime>0=0',
        'fork: exit 0',
        "after the child: 'hello shm' 'the child's attach'",
        'after the child IPC_STAT: key=0x5e9f00d mode=600 segsz=10000 nattch=1 cpid_is_me=1 lpid_is_me=0 atime>0=1 dtime>0=1',
        'shmat unaligned: EINVAL',
        'shmat where it is attached: EINVAL',
        'shmat SHM_REMAP over itself: same address 1',
        'shmdt inside it: EINVAL',
        'shmdt: 0',
        'shmdt again: EINVAL',
        "shmat SHM_RND: rounded down 1, reads 'hello shm'",
        "shmat SHM_RDONLY reads 'hello shm'",
        'write to SHM_RDONLY: killed by signal 11',
        'SHM_RDONLY: mprotect rw: EACCES',
        'detached IPC_STAT: key=0x5e9f00d mode=600 segsz=10000 nattch=0 cpid_is_me=1 lpid_is_me=1 atime>0=1 dtime>0=1',
        'IPC_INFO: ret>=0=1 shmmax=18446744073692774399 shmmin=1 shmmni=4096 shmseg=4096 shmall=18446744073692774399',
        'SHM_INFO: ret>=0=1 used_ids=2 shm_tot=4 shm_rss=1 shm_swp=0',
        'SHM_STAT of its index: its id 1',
        'shmctl bad command: EINVAL',
        'shmctl IPC_STAT bad address: EFAULT',
        'IPC_SET 0644: 0',
        'SHM_LOCK: 0',
        'locked IPC_STAT: key=0x5e9f00d mode=2644 segsz=10000 nattch=0 cpid_is_me=1 lpid_is_me=1 atime>0=1 dtime>0=1',
        'SHM_UNLOCK: 0',
        'other user: shmget by key: EACCES',
        'other user: shmat: EACCES',
        'other user: IPC_STAT: 0',
        'other user: SHM_STAT_ANY is the id: 1',
        'other user: IPC_SET: EPERM',
        'other user: IPC_RMID: EPERM',
        'other user: SHM_LOCK: EPERM',
        'other user: exit 0',
        'header:        key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap',
        'line: key=0x5e9f00d perms=644 size=10000 nattch=0 uid=0 gid=0 rss=4096 swap=0 id_ok=1 width=170',
        'IPC_RMID while attached: 0',
        'removed, attached IPC_STAT: key=0 mode=1644 segsz=10000 nattch=1 cpid_is_me=1 lpid_is_me=1 atime>0=1 dtime>0=1',
        'shmget of its key: ENOENT',
        "shmat of a removed one: ok, reads 'hello shm'",
        'two attaches IPC_STAT: key=0 mode=1644 segsz=10000 nattch=2 cpid_is_me=1 lpid_is_me=1 atime>0=1 dtime>0=1',
        'last shmdt: 0',
        'gone IPC_STAT: EINVAL',
        'IPC_RMID of the private one: 0',
        'IPC_RMID again: EINVAL',
    ]
