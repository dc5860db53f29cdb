"""The events of POSIX timers and queued signals in a session, as Linux 6.1 writes them: a
timer's hrtimer initialised by timer_create, armed by timer_settime (posix_timer_fn), its expiry
in a hard interrupt queueing SI_TIMER's signal, delivered to the SA_SIGINFO handler; sigqueue(3)'s
real-time signals queued one each, a legacy one once (res=2: already pending).  The expected
lines are what kernel_model/user/static/timertest printed under real 6.1 (real-tracefs), its
variable parts (pids, times, addresses, the interrupted context's flags) left out."""

import os
import re

import pytest
from simtest import tracefs_sim

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/fuse") or os.geteuid() != 0,
                                reason="needs /dev/fuse, root and mount namespaces")

T = "/sys/kernel/tracing"
EVENTS = ("signal/signal_generate", "signal/signal_deliver", "timer/hrtimer_init", "timer/hrtimer_start",
          "timer/hrtimer_expire_entry")
LINE = re.compile(r"^\s*(?P<comm>.+?)-\d+\s+\[\d+\] (?P<flags>\S{5})\s+[\d.]+: (?P<event>\w+): (?P<text>.*)$")


def normalized(line: str) -> str:
    """comm, flags (IRQ for a hard interrupt's, whose count is the interrupted context's), event
    and its text without pids, times, addresses and the handler's address."""
    m = LINE.match(line)
    assert m, line
    flags = "IRQ" if m["flags"][2] == "h" else m["flags"]
    text = re.sub(r"hrtimer=\S+ ?", "", m["text"])
    text = re.sub(r" (pid|expires|softexpires|now|sa_handler)=\w+", "", text)
    return f"{m['comm']} {flags} {m['event']}: {text}"


def traced(case: str) -> list[str]:
    enable = "; ".join(f"echo 1 > {T}/events/{e}/enable" for e in EVENTS)
    result = tracefs_sim("run", "--workload", "none", "-c",
                         f"{enable}; tracefs-sim exec timertest {case} > /dev/null; "
                         f"echo 0 > {T}/tracing_on; cat {T}/trace", timeout=180)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if not line.startswith("#")]


def test_a_timers_expiry_queues_si_timer_for_the_handler():
    lines = [normalized(line) for line in traced("handler")
             if re.search(r"timertest-\d+ .*(hrtimer_init|hrtimer_start|signal_)|function=posix_timer_fn|"
                          r"signal_generate: .*comm=timertest", line) and "tick_sched_timer" not in line]
    # the expiry is in whatever context the interrupt found (its comm: the idle task, a session's)
    expiry = [line.split(" ", 1)[1] for line in lines[3:5]]
    assert lines[:3] + expiry + lines[5:] == [
        "timertest ..... hrtimer_init: clockid=CLOCK_MONOTONIC mode=ABS",     # timer_create
        "timertest d..1. hrtimer_init: clockid=CLOCK_MONOTONIC mode=REL",     # timer_settime
        "timertest d..2. hrtimer_start: function=posix_timer_fn mode=ABS was_armed=0",
        "IRQ hrtimer_expire_entry: function=posix_timer_fn",
        # SIGRTMIN+1 (musl's SIGRTMIN is 35) to the group, SI_TIMER
        "IRQ signal_generate: sig=36 errno=0 code=-2 comm=timertest grp=1 res=0",
        "timertest d..1. signal_deliver: sig=36 errno=0 code=-2 sa_flags=4000004",
    ]


def test_queued_signals_events():
    lines = [normalized(line) for line in traced("queue")
             if re.search(r"signal_(generate|deliver): sig=(3[5-9]|10) ", line)]
    assert lines == [
        # sigqueue() three times: each queued; SIGUSR1 twice: the second already pending
        *["timertest d..1. signal_generate: sig=35 errno=0 code=-1 comm=timertest grp=1 res=0"] * 3,
        "timertest d..1. signal_generate: sig=10 errno=0 code=-1 comm=timertest grp=1 res=0",
        "timertest d..1. signal_generate: sig=10 errno=0 code=-1 comm=timertest grp=1 res=2",
        # rt_tgsigqueueinfo: to the thread
        "timertest d..1. signal_generate: sig=35 errno=0 code=-1 comm=timertest grp=0 res=0",
        # to the SA_SIGINFO handler (sigtimedwait's are not deliveries)
        "timertest d..1. signal_generate: sig=37 errno=0 code=-1 comm=timertest grp=1 res=0",
        "timertest d..1. signal_deliver: sig=37 errno=0 code=-1 sa_flags=4000004",
    ]
