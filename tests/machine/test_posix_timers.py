"""POSIX timers (timer_create, timer_settime, timer_gettime, timer_getoverrun, timer_delete) and
queued signals (rt_sigqueueinfo, rt_tgsigqueueinfo, rt_sigtimedwait, RLIMIT_SIGPENDING) in the
emulated kernel (kernel/posix_timers.c, kernel/signal.c): a static glibc program
(kernel_model/user/static/timertest.c, musl where installed) runs each case and prints what it saw; the expected lines
are what the same binary printed on the reference Linux 6.1 (real-tracefs)."""


def test_bad_input_gets_6_1s_errnos_and_ids_count_up(machine, program_lines):
    # the creations that fail after the id is taken use one each, as 6.1's (first id 5)
    assert program_lines(machine, ["timertest", "errors"]) == [
        "unknown clock: EINVAL",
        "CLOCK_MONOTONIC_RAW: EOPNOTSUPP",
        "sigev_notify 7: EINVAL",
        "signal 0: EINVAL",
        "signal 65: EINVAL",
        "SIGEV_THREAD_ID of another process: EINVAL",
        "bad address for the id: EFAULT",
        "settime of no timer: EINVAL",
        "gettime of no timer: EINVAL",
        "getoverrun of no timer: EINVAL",
        "delete of no timer: EINVAL",
        "first id: 5",
        "tv_nsec 1e9: EINVAL",
        "NULL setting: EINVAL",
        "delete: ok",
        "delete again: EINVAL",
        "next id: 6",
    ]


def test_a_one_shot_timers_signal_reaches_an_sa_siginfo_handler(machine, program_lines):
    assert program_lines(machine, ["timertest", "handler"]) == [
        "armed: value<=20ms=1 value>0=1 interval=0",
        "handler: sig=SIGRTMIN+1 code=SI_TIMER value=0x1234 timerid=1 overrun=0",
        "expired: value=0.000000000",
        "delete: ok",
    ]


def test_an_interval_timer_whose_signal_waits_counts_overruns(machine, program_lines):
    assert program_lines(machine, ["timertest", "overrun"]) == [
        "taken: sig=1 code=SI_TIMER overrun>=5=1 value=0",
        "getoverrun == si_overrun: 1",
        "next: sig=1 overrun<=2=1",
        "gettime: interval=10ms value<=10ms=1",
        "disarm: old interval=10ms",
        "disarmed: value=0 interval=0",
        "getoverrun after disarm: 0",
        "delete: ok",
    ]


def test_sigev_none_never_signals_and_tells_the_time_left(machine, program_lines):
    assert program_lines(machine, ["timertest", "none"]) == [
        "armed: value<=50ms=1 value>0=1",
        "after 80ms: value=0.000000000",
        "interval, later: value<=20ms=1 value>0=1 getoverrun=0",
    ]


def test_thread_id_realtime_absolute_and_default_sigevent_then_exit_with_timers_armed(machine, program_lines):
    assert program_lines(machine, ["timertest", "kinds"]) == [
        "thread id: ok",
        "taken: 1 code=SI_TIMER",
        "no sigevent: ok",
        "absolute: ok",
        "taken: 1 code=SI_TIMER value=id:1",
        "past: 1",
        "absolute 5s ahead: left in (4s,5s]=1",
        "TAI 3s ahead: left in (2s,3s]=1",
        "boottime: ok",
        "boottime 3s: left in (2s,3s]=1 interval=1000ms",
    ]


def test_queued_signals_keep_their_order_and_values(machine, program_lines):
    assert program_lines(machine, ["timertest", "queue"]) == [
        "rt 0: sig=1 code=SI_QUEUE value=10 pid=1",
        "rt 1: sig=1 code=SI_QUEUE value=20 pid=1",
        "rt 2: sig=1 code=SI_QUEUE value=30 pid=1",
        "rt empty: -1 EAGAIN",
        "legacy: sig=1 value=7",
        "legacy again: -1 EAGAIN",
        "tgsigqueueinfo: ok",
        "taken: 1 value=99",
        "tgsigqueueinfo tid 0: EINVAL",
        "sigqueueinfo bad pointer: EFAULT",
        "sigqueueinfo no such pid: ESRCH",
        "sigqueueinfo signal 65: EINVAL",
        "to another, SI_USER: EPERM",
        "to another, SI_KERNEL: EPERM",
        "to another, SI_TKILL: EPERM",
        "to another, SI_QUEUE: ok",
        "child: signaled=1 sig=15",
        "handler: sig=SIGRTMIN+2 code=SI_QUEUE value=4242",
        "timedwait bad timeout: EINVAL",
        "timedwait bad size: EINVAL",
        "timedwait timeout: EAGAIN",
    ]


def test_real_time_signals_queue_up_to_rlimit_sigpending(machine, program_lines):
    assert program_lines(machine, ["timertest", "rlimit"]) == [
        "queued until: EAGAIN near limit=1",
        "kill over the limit: ok",
        "after flush: ok",
        "SigQ: 3/limit=1",
    ]


def test_exec_deletes_the_timers_and_their_queued_signals(machine, program_lines):
    assert program_lines(machine, ["timertest", "exec"]) == [
        "after exec: timer EINVAL",
        "timer's signal pending=0, queued signal pending=1",
        "queued signal: 1 value=5",
    ]
