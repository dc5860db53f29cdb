"""The daemon's wait for the kernel to catch up with a session (machine/session_ring.py's
caught_up): done, stalled, progressing slowly.  (Its counters' offsets are checked against the
image by hostif.check_abi: tests/machine/test_hostif_abi.py.)"""

import time

from tracefs_sim.machine import session_ring


class _Ring:
    """A ring whose kernel is done with `step` more records at each look at retired_upto;
    `ahead` more are done with out of order (a fast task's newer records)."""

    def __init__(self, produced: int, step: int, ahead: int = 0):
        self.produced, self.upto, self.step, self.ahead = produced, 0, step, ahead

    def read_u64(self, pa: int) -> int:
        if pa == session_ring.PRODUCED_OFFSET:
            return self.produced
        if pa == session_ring.RETIRED_OFFSET:
            return self.upto + self.ahead
        assert pa == session_ring.RETIRED_UPTO_OFFSET
        self.upto = min(self.upto + self.step, self.produced)
        return self.upto


def test_waits_until_every_record_produced_is_done_with():
    ring = _Ring(produced=400, step=1)
    assert session_ring.caught_up(ring.read_u64, 0, stall=30.0, most=30.0)
    assert ring.upto == 400


def test_a_stuck_replay_is_given_up_at_the_timeout():
    ring = _Ring(produced=5, step=0)
    assert not session_ring.caught_up(ring.read_u64, 0, stall=0.05, most=30.0)
    assert ring.upto == 0


class _SlowRing(_Ring):
    """A kernel that retires one record every `every` seconds."""

    def __init__(self, produced: int, every: float):
        super().__init__(produced, step=0)
        self.every, self.began = every, time.monotonic()

    def read_u64(self, pa: int) -> int:
        if pa == session_ring.RETIRED_UPTO_OFFSET:
            self.upto = min(int((time.monotonic() - self.began) / self.every), self.produced)
            return self.upto
        return super().read_u64(pa)


def test_a_replay_that_progresses_is_waited_for_past_the_stall():
    ring = _SlowRing(produced=4, every=0.03)   # 0.12 s in all, each step within the stall
    assert session_ring.caught_up(ring.read_u64, 0, stall=0.05, most=30.0)
    assert ring.upto == 4


def test_a_replay_that_progresses_is_given_up_at_the_most():
    ring = _SlowRing(produced=1000, every=0.01)
    assert not session_ring.caught_up(ring.read_u64, 0, stall=0.05, most=0.2)
    assert ring.upto < 1000


def test_newer_records_done_with_do_not_stand_for_an_older_one_still_waiting():
    """retired (a count) reaches what was produced while retired_upto does not: not caught up."""
    ring = _Ring(produced=5, step=0, ahead=5)
    assert not session_ring.caught_up(ring.read_u64, 0, stall=0.05, most=30.0)
