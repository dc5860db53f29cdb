"""System V message queues and semaphores in the emulated kernel (kernel_model/ipc/): a static program
(kernel_model/user/static/ipctest.c, musl where installed) runs each case and prints what it
saw; the expected lines are what the same binary printed on the reference Linux 6.1
(real-tracefs)."""
import pytest


@pytest.fixture(scope="module")
def machine(vmlinux):
    from tracefs_sim.machine import Machine, MachineOptions
    m = Machine(MachineOptions(kernel_image=vmlinux, cpus=2, workload="none"))
    m.start()
    yield m
    m.stop()


def run(run_program, machine, case):
    status, out = run_program(machine, ["ipctest", case], timeout=120.0)
    assert status == 0, out
    return out.decode().splitlines()


def test_msg_calls_their_errors_and_permissions_as_6_1(machine, run_program):
    # ids: a key's queue, IPC_PRIVATE's new ones, a removed queue's id not given again;
    # receive by type (0, > 0, < 0, MSG_EXCEPT, MSG_COPY), E2BIG and MSG_NOERROR; IPC_STAT,
    # IPC_INFO, MSG_INFO, MSG_STAT; another user's EACCES and EPERM; IPC_SET, IPC_RMID
    assert run(run_program, machine, "msg") == [
        'msgget of a key not in use: ENOENT',
        'msgget IPC_CREAT: ok',
        'msgget IPC_CREAT|IPC_EXCL again: EEXIST',
        'msgget again: same id 1',
        'msgget IPC_PRIVATE: new id 1',
        'msgget IPC_PRIVATE again: new id 1',
        'msgsnd type 0: EINVAL',
        'msgsnd 8193 bytes: EINVAL',
        'msgsnd id -1: EINVAL',
        'msgsnd no such id: EINVAL',
        'msgsnd bad address: EFAULT',
        'msgrcv id -1: EINVAL',
        'msgrcv empty IPC_NOWAIT: ENOMSG',
        'msgrcv MSG_COPY without IPC_NOWAIT: EINVAL',
        'msgsnd type 3: ok',
        'msgsnd type 1: ok',
        'msgsnd type 2: ok',
        'msgsnd type 5: ok',
        'msgsnd type 1 again: ok',
        'IPC_STAT: ret=0 qnum=5 cbytes=18 qbytes=16384 mode=600 key=0x1c0ffee lspid=1 lrpid=0 stime>0=1',
        'msgrcv MSG_COPY 1: type=1 text=one',
        'msgrcv MSG_COPY 9: ENOMSG',
        'msgrcv type -2: type=1 text=one',
        'msgrcv type 5: type=5 text=five',
        'msgrcv type 3 MSG_EXCEPT: type=2 text=two',
        'msgrcv type 4 IPC_NOWAIT: ENOMSG',
        'msgrcv type 0: type=3 text=three',
        'msgrcv type -100: type=1 text=uno',
        'msgsnd 11 bytes: ok',
        'msgrcv into 5 bytes: E2BIG',
        'msgrcv into 5 bytes MSG_NOERROR: type=7 text=hello',
        'IPC_STAT: qnum=0 cbytes=0 lrpid=1 rtime>0=1',
        'msgsnd for MSG_INFO: ok',
        'IPC_INFO: ret>=0=1 msgpool=512000 msgmap=16384 msgmax=8192 msgmnb=16384 msgmni=32000 msgssz=16 msgtql=16384 msgseg=65535',
        'MSG_INFO: ret>=0=1 queues=3 messages=1 bytes=4',
        'MSG_STAT of its index: its id 1',
        'msgctl bad command: EINVAL',
        'msgctl IPC_STAT bad address: EFAULT',
        'other user: msgget asking for 0600: EACCES',
        'other user: msgget asking for nothing: ok',
        'other user: msgsnd: EACCES',
        'other user: msgrcv: EACCES',
        'other user: IPC_STAT: EACCES',
        'other user: IPC_SET: EPERM',
        'other user: IPC_RMID: EPERM',
        'IPC_SET mode 0666 qbytes 100: ok',
        'IPC_STAT: mode=666 qbytes=100 ctime>0=1',
        'msgsnd past qbytes IPC_NOWAIT: EAGAIN',
        'other user: msgget asking for 0600: ok',
        'other user: msgget asking for nothing: ok',
        'other user: msgsnd: ok',
        'other user: msgrcv: type=1 text=abcd',
        'other user: IPC_STAT: ok',
        'other user: IPC_SET: EPERM',
        'other user: IPC_RMID: EPERM',
        'IPC_RMID: ok',
        'msgsnd to the removed queue: EINVAL',
        'msgget of the key again: a new id 1, the same index 0',
    ]


def test_msg_sleepers_are_woken_by_the_other_side_by_rmid_and_by_signals(machine, run_program):
    assert run(run_program, machine, "msgblock") == [
        'child asleep: 1',
        'child: msgrcv woken by a send: type=2 text=for the child',
        'msgsnd type 1: ok',
        'msgsnd type 2: ok',
        'msgrcv the type 1 left: type=1 text=not this one',
        'msgsnd 8192 bytes: ok',
        'msgsnd 8192 bytes again: ok',
        'msgsnd to a full queue IPC_NOWAIT: EAGAIN',
        'child asleep: 1',
        'child: msgsnd woken by a receive: ok',
        'msgrcv: 8192 bytes',
        "msgrcv the child's: type=3 text=in",
        'child asleep: 1',
        'child: msgrcv with a signal: EINTR',
        'child asleep again: 1',
        'child: msgrcv with IPC_RMID: EIDRM',
        'IPC_RMID: ok',
    ]


def test_sem_calls_their_errors_undo_and_permissions_as_6_1(machine, run_program):
    # semget's checks; semop's all-or-nothing operations (IPC_NOWAIT, SEMVMX, the same semaphore
    # twice), semtimedop's timeout; semctl's commands; SEM_UNDO applied at a child's exit and at
    # unshare(CLONE_SYSVSEM), SETVAL clearing it; another user's EACCES and EPERM
    assert run(run_program, machine, "sem") == [
        'semget of a key not in use: ENOENT',
        'semget of 0 semaphores: EINVAL',
        'semget of -1 semaphores: EINVAL',
        'semget of 32001 semaphores: EINVAL',
        'semget IPC_CREAT of 3: ok',
        'semget of 4 of it: EINVAL',
        'semget of 2 of it: same id 1',
        'semget of 0 of it: same id 1',
        'semget IPC_CREAT|IPC_EXCL again: EEXIST',
        'semop of 0 operations: EINVAL',
        'semop of 501 operations: E2BIG',
        'semop of semaphore 3: EFBIG',
        'semop id -1: EINVAL',
        'semop no such id: EINVAL',
        'semop bad address: EFAULT',
        'semop -1 of 0 IPC_NOWAIT: EAGAIN',
        'semop wait for zero of 0: ok',
        'semop +32767: ok',
        'semop +1 past SEMVMX: ERANGE',
        'SETVAL 5: ok',
        'GETVAL: 5',
        'SETVAL -1: ERANGE',
        'SETVAL 32768: ERANGE',
        'SETVAL of semaphore 3: EINVAL',
        'GETVAL of semaphore -1: EINVAL',
        'SETALL 1 2 3: ok',
        'GETALL: 1 2 3',
        'semop 0:-1 1:+1: ok',
        'GETALL: 0 3 3',
        'semop 2:-1 1:-4 IPC_NOWAIT: EAGAIN',
        'GETALL (nothing done): 0 3 3',
        'semop 2:+1 2:-4 (the same semaphore): ok',
        'GETALL: 0 3 0',
        'GETPID: ours 1',
        'GETNCNT: 0',
        'GETZCNT: 0',
        'semtimedop -1 of 0 for 10 ms: EAGAIN',
        'semtimedop tv_nsec 1e9: EINVAL',
        'IPC_STAT: ret=0 nsems=3 mode=600 key=0x5e3a otime>0=1 ctime>0=1',
        'IPC_INFO: ret>=0=1 semmap=1024000000 semmni=32000 semmns=1024000000 semmnu=1024000000 semmsl=32000 semopm=500 semume=500 semusz=20 semvmx=32767 semaem=32767',
        'SEM_INFO: ret>=0=1 arrays=1 semaphores=3',
        'SEM_STAT of its index: its id 1',
        'semctl bad command: EINVAL',
        'child: semop 0:+2 SEM_UNDO: ok',
        'child: semop 1:-1 SEM_UNDO: ok',
        'child: GETALL: 2 2 0',
        "GETALL after the child's exit: 0 3 0",
        'semop 0:+3 SEM_UNDO: ok',
        'SETVAL 0 1 (clears its adjustment): ok',
        'semop 1:+1 SEM_UNDO: ok',
        'semop 0:-32768 SEM_UNDO: EAGAIN',
        'unshare CLONE_SYSVSEM (applies them): ok',
        'GETALL: 1 3 0',
        'other user: semget asking for 0600: EACCES',
        'other user: semget asking for nothing: ok',
        'other user: semop: EACCES',
        'other user: wait for zero: EACCES',
        'other user: GETVAL: EACCES',
        'other user: SETVAL: EACCES',
        'other user: IPC_STAT: EACCES',
        'other user: IPC_RMID: EPERM',
        'IPC_SET mode 0644: ok',
        'other user: semget asking for 0600: EACCES',
        'other user: semget asking for nothing: ok',
        'other user: semop: EACCES',
        'other user: wait for zero: EAGAIN',
        'other user: GETVAL: ok',
        'other user: SETVAL: EACCES',
        'other user: IPC_STAT: ok',
        'other user: IPC_RMID: EPERM',
        'IPC_RMID: ok',
        'semop on the removed array: EINVAL',
        'GETVAL on the removed array: EINVAL',
    ]


def test_sem_sleepers_are_woken_by_semop_setval_rmid_and_signals(machine, run_program):
    assert run(run_program, machine, "semblock") == [
        'child asleep: 1',
        'child: semop 0:-2 woken by semops: ok',
        'GETNCNT: 1',
        'semop 0:+1: ok',
        'GETNCNT still: 1',
        'semop 0:+1: ok',
        'GETALL: 0 0',
        'SETVAL 1 1: ok',
        'child asleep: 1',
        'child: wait for zero woken by SETVAL: ok',
        'GETZCNT: 1',
        'SETVAL 1 0: ok',
        'child asleep: 1',
        'child: semop with a signal: EINTR',
        'child asleep again: 1',
        'child: semop with IPC_RMID: EIDRM',
        'IPC_RMID: ok',
    ]


def test_proc_sysvipc_lists_the_queues_and_arrays_in_6_1s_format(machine, run_program):
    # (the line widths too: 6.1's fixed columns)
    assert run(run_program, machine, "proc") == [
        '       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime',
        'msg: key=30583 ours=1 mode=640 cbytes=12 qnum=1 lspid ours=1 lrpid=0 ids=0 0 0 0 stime>0=1 rtime=0 ctime>0=1 width=120',
        '       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime',
        'sem: key=34952 ours=1 mode=604 nsems=4 ids=0 0 0 0 otime>0=1 ctime>0=1 width=85',
    ]
